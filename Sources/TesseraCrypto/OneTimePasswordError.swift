/// Why a ``OneTimePassword`` could not be made or could not compute a code. A code that is merely wrong is not an
/// error: ``OneTimePassword/matchingStep(_:at:window:)`` answers nil for it.
public enum OneTimePasswordError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The shared secret has no bytes.
    case emptySecret
    /// A code length outside 6...8 digits (RFC 4226 §5.3 asks for at least 6; authenticator apps show at most 8).
    case digitsOutOfRange(Int)
    /// A time step that is not at least one second.
    case periodOutOfRange(Int)
    /// A Unix time before 1970: a clock that far off is broken, and its step would not be defined by RFC 6238.
    case timeBeforeEpoch(Int64)
    /// A window of adjacent steps outside `0...OneTimePassword.maximumWindow`.
    case windowOutOfRange(Int)
    /// OpenSSL failed to compute the HMAC.
    case crypto(CryptoError)

    /// One line saying what is wrong; never includes the secret or a code.
    public var description: String {
        switch self {
        case .emptySecret: "one-time password secret is empty"
        case .digitsOutOfRange(let digits): "one-time password length \(digits) is not 6, 7 or 8 digits"
        case .periodOutOfRange(let period): "one-time password period \(period) s is not at least 1 s"
        case .timeBeforeEpoch(let time): "Unix time \(time) is before 1970"
        case .windowOutOfRange(let window):
            "window of \(window) adjacent steps is outside 0...\(OneTimePassword.maximumWindow)"
        case .crypto(let error): error.description
        }
    }
}
