public import FoundationEssentials
import TesseraCrypto

/// The signatures of the factor protocol (`docs/factor-protocol.md` §2): HMAC-SHA256 under the service's 256-bit
/// secret over a timestamp, a nonce and the body of each request, and over the request's nonce and the body of
/// each answer. Tessera signs requests and checks answers; a factor service does the opposite.
public enum FactorServiceSignature {
    /// The request header carrying seconds since 1970.
    public static let timestampHeader = "Tessera-Factor-Timestamp"
    /// The request header carrying 16 random bytes in base64url.
    public static let nonceHeader = "Tessera-Factor-Nonce"
    /// The header carrying the signature of a request or of an answer (`v1=` + base64url).
    public static let signatureHeader = "Tessera-Factor-Signature"
    /// How far a request's timestamp may be from the service's clock.
    public static let maxClockSkew: TimeInterval = 60
    /// How long a service remembers the nonces it accepted (twice the skew, so a replay always meets one of them
    /// or an expired timestamp).
    public static let nonceMemory: TimeInterval = 120
    /// The length of a secret, in bytes.
    public static let secretByteCount = 32

    /// A new nonce: 16 random bytes, base64url.
    public static func makeNonce() throws -> String {
        Base64URL.encode(try SecureRandom.bytes(count: 16))
    }

    /// The signature header value of a request with `body`, sent at `timestamp` with `nonce`.
    public static func request(body: [UInt8], secret: [UInt8], timestamp: Int64, nonce: String) throws -> String {
        "v1="
            + Base64URL.encode(
                try HMAC.authenticationCode(
                    for: requestMessage(body: body, timestamp: timestamp, nonce: nonce), key: secret, algorithm: .sha256
                ))
    }

    /// Whether `signature` (a header value) signs a request with `body`, `timestamp` and `nonce`; constant-time.
    public static func isValidRequest(
        _ signature: String, body: [UInt8], secret: [UInt8], timestamp: Int64, nonce: String
    ) -> Bool {
        isValid(signature, message: requestMessage(body: body, timestamp: timestamp, nonce: nonce), secret: secret)
    }

    /// The signature header value of an answer with `body` to the request that carried `nonce`.
    public static func response(body: [UInt8], secret: [UInt8], nonce: String) throws -> String {
        "v1="
            + Base64URL.encode(
                try HMAC.authenticationCode(
                    for: responseMessage(body: body, nonce: nonce), key: secret, algorithm: .sha256))
    }

    /// Whether `signature` (a header value) signs an answer with `body` to the request that carried `nonce`.
    public static func isValidResponse(_ signature: String, body: [UInt8], secret: [UInt8], nonce: String) -> Bool {
        isValid(signature, message: responseMessage(body: body, nonce: nonce), secret: secret)
    }

    private static func isValid(_ signature: String, message: [UInt8], secret: [UInt8]) -> Bool {
        guard signature.hasPrefix("v1="), let code = try? Base64URL.decode(signature.dropFirst(3)) else {
            return false
        }
        return HMAC.isValidAuthenticationCode(code, for: message, key: secret, algorithm: .sha256)
    }

    private static func requestMessage(body: [UInt8], timestamp: Int64, nonce: String) -> [UInt8] {
        Array("tessera-factor-v1\n\(timestamp)\n\(nonce)\n".utf8) + body
    }

    private static func responseMessage(body: [UInt8], nonce: String) -> [UInt8] {
        Array("tessera-factor-v1-response\n\(nonce)\n".utf8) + body
    }
}
