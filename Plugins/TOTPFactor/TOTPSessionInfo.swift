/// The `totpSessionInfo` result of `mfaEnrollment.start` (API §4 `TotpSessionInfo`). `sharedSecretKey` appears
/// here and nowhere else, ever.
public struct TOTPSessionInfo: Codable, Sendable, Equatable {
    /// The secret in base32 (RFC 4648, no padding), 160 bits.
    public var sharedSecretKey: String
    public var verificationCodeLength: Int
    public var hashingAlgorithm: String
    public var periodSec: Int
    /// The enrolment session, for `mfaEnrollment.finalize`.
    public var sessionInfo: String
    /// RFC 3339: when the enrolment session ends.
    public var finalizeEnrollmentTime: String
    /// The key URI an authenticator app scans.
    public var otpauthUri: String
}
