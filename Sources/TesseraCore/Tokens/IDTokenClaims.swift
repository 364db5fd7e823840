/// The claims of a Tessera ID token (API §3), as written into and read out of the JWT.
public struct IDTokenClaims: Codable, Sendable, Equatable {
    public var iss: String
    public var aud: String
    /// The user's `localId`.
    public var sub: String
    public var iat: Int64
    public var exp: Int64
    /// When the user proved their first factor (seconds since 1970); rotation keeps it.
    public var authTime: Int64
    public var tenant: String?
    public var email: String?
    public var emailVerified: Bool
    public var phoneNumber: String?
    /// `password` or `phone`.
    public var signInProvider: String
    /// `phone` or `totp` after a second factor.
    public var signInSecondFactor: String?
    /// The `mfaEnrollmentId` of the second factor used.
    public var secondFactorIdentifier: String?
    /// True when MANDATORY MFA requires enrolment before the token is good for anything else (API §4 rule 5).
    public var mfaEnrollmentRequired: Bool?
    /// The sign-in (token family) the token belongs to, which `accounts.signOut` ends; absent from tokens issued
    /// before version 1.1, which `accounts.signOut` refuses.
    public var sid: String?

    enum CodingKeys: String, CodingKey {
        case iss, aud, sub, iat, exp, tenant, email, sid
        case authTime = "auth_time"
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
        case signInProvider = "sign_in_provider"
        case signInSecondFactor = "sign_in_second_factor"
        case secondFactorIdentifier = "second_factor_identifier"
        case mfaEnrollmentRequired = "mfa_enrollment_required"
    }
}
