/// Why an AES-256-GCM key, key ring or envelope was refused.
public enum AESGCMError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key that is not exactly 32 bytes long; the length found.
    case invalidKeyLength(Int)
    /// A nonce that is not exactly 12 bytes or a tag that is not exactly 16 bytes.
    case invalidBoxLayout(String)
    /// A key id that is empty, longer than 255 bytes, or uses characters other than `A–Z a–z 0–9 . _ -`.
    case invalidKeyID(String)
    /// A key ring whose current key id names no key in the ring.
    case missingCurrentKey(String)
    /// An envelope too short or inconsistent to be parsed.
    case malformedEnvelope(String)
    /// An envelope whose version byte this code does not know.
    case unsupportedVersion(UInt8)
    /// An envelope sealed under a key the ring does not hold.
    case unknownKeyID(String)
    /// The tag did not verify: wrong key, wrong associated data, or the data was changed. Nothing is returned.
    case authenticationFailed
    /// OpenSSL failed.
    case crypto(CryptoError)

    /// One line saying what is wrong; never includes key material.
    public var description: String {
        switch self {
        case .invalidKeyLength(let length): "AES-256 key must be 32 bytes, got \(length)"
        case .invalidBoxLayout(let reason): "invalid sealed box: \(reason)"
        case .invalidKeyID(let reason): "invalid key id: \(reason)"
        case .missingCurrentKey(let keyID): "current key id \(keyID) is not in the key ring"
        case .malformedEnvelope(let reason): "malformed envelope: \(reason)"
        case .unsupportedVersion(let version): "unsupported envelope version \(version)"
        case .unknownKeyID(let keyID): "envelope sealed under unknown key id \(keyID)"
        case .authenticationFailed: "authentication failed: wrong key, wrong associated data, or tampered data"
        case .crypto(let error): error.description
        }
    }
}
