import TesseraCrypto

/// SMS codes (API §4): 6 digits from the CSPRNG, kept only as an HMAC-SHA256 keyed by the `sessionInfo` they were
/// sent for. The database holds the session's handle only as a hash, so a stolen row reveals nothing that could
/// be brute-forced offline: the 10^6 candidates cannot be tried without the handle.
public enum PhoneCode {
    /// Digits per code.
    public static let digits = 6

    /// A fresh code.
    public static func make() throws -> String {
        try SecureRandom.digits(count: digits)
    }

    /// The digest stored for `code` sent under `sessionInfo`.
    public static func digest(_ code: String, sessionInfo: String) throws -> [UInt8] {
        try HMAC.authenticationCode(for: code, key: Array(sessionInfo.utf8), algorithm: .sha256)
    }

    /// Whether `candidate` is the code whose digest under `sessionInfo` is `digest`, compared in constant time.
    public static func matches(_ candidate: String, digest: [UInt8], sessionInfo: String) -> Bool {
        HMAC.isValidAuthenticationCode(
            digest, for: Array(candidate.utf8), key: Array(sessionInfo.utf8), algorithm: .sha256)
    }
}
