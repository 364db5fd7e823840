/// The HMAC hash of a one-time password (RFC 6238 §1.2), named as `otpauth://` URIs spell it (`algorithm=SHA1`).
public enum OTPAlgorithm: String, Sendable, CaseIterable {
    /// HMAC-SHA-1, the RFC 4226 original and what authenticator apps assume when a URI names no algorithm.
    case sha1 = "SHA1"
    /// HMAC-SHA-256 (RFC 6238).
    case sha256 = "SHA256"
    /// HMAC-SHA-512 (RFC 6238).
    case sha512 = "SHA512"

    /// The HMAC that computes codes of this algorithm.
    var hmacAlgorithm: HMAC.Algorithm {
        switch self {
        case .sha1: .sha1
        case .sha256: .sha256
        case .sha512: .sha512
        }
    }
}
