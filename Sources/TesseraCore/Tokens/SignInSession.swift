public import FoundationEssentials
import TesseraPostgres

/// One completed sign-in: what every token issued from it says about how the user authenticated. Refresh
/// tokens rotate within it (its `token_families` row); revoking it revokes every refresh token of the sign-in.
public struct SignInSession: Sendable, Equatable {
    public var userID: String
    public var tenantID: String?
    /// When the first factor was proved.
    public var authTime: Date
    /// `password` or `phone`.
    public var provider: String
    /// The factor id (`phone`, `totp`) of the second factor, when one was passed.
    public var secondFactor: String?
    /// The enrolment id of that second factor.
    public var secondFactorID: String?
    /// MANDATORY MFA asks this user to enrol before doing anything else.
    public var mfaEnrollmentRequired: Bool

    /// Creates a session description.
    public init(
        userID: String, tenantID: String?, authTime: Date, provider: String, secondFactor: String? = nil,
        secondFactorID: String? = nil, mfaEnrollmentRequired: Bool = false
    ) {
        self.userID = userID
        self.tenantID = tenantID
        self.authTime = authTime
        self.provider = provider
        self.secondFactor = secondFactor
        self.secondFactorID = secondFactorID
        self.mfaEnrollmentRequired = mfaEnrollmentRequired
    }
}
