/// Why a password could not be hashed or a stored hash could not be used. Malformed stored hashes are refused
/// with these, never with a crash and never by answering "wrong password".
public enum PasswordHashError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The string is not a PHC string of the shape ``PasswordHasher`` writes; `reason` says which part is wrong.
    case malformedHash(String)
    /// A PHC string of another algorithm (`$argon2id$…`); the id found.
    case unsupportedAlgorithm(String)
    /// scrypt parameters outside what Tessera accepts (absurd cost or memory, zero values).
    case parametersOutOfRange(String)
    /// OpenSSL failed.
    case crypto(CryptoError)

    /// One line saying what is wrong; never includes the password or the hash.
    public var description: String {
        switch self {
        case .malformedHash(let reason): "malformed password hash: \(reason)"
        case .unsupportedAlgorithm(let id): "unsupported password hash algorithm \(id)"
        case .parametersOutOfRange(let reason): "scrypt parameters out of range: \(reason)"
        case .crypto(let error): error.description
        }
    }
}
