/// What a successful sign-in or refresh returns (API §3 `TokenResult`), with the extra members some methods add.
public struct TokenResult: Codable, Sendable, Equatable {
    public var localId: String
    public var idToken: String
    public var refreshToken: String
    /// Seconds until the ID token expires.
    public var expiresIn: Int
    /// `accounts.signUp`.
    public var email: String?
    /// `accounts.signInWithPhoneNumber`.
    public var phoneNumber: String?
    /// `accounts.signInWithPhoneNumber`.
    public var isNewUser: Bool?
    /// `mfaEnrollment.finalize`.
    public var mfaEnrollmentId: String?
    /// MANDATORY MFA and no usable enrolment (API §4 rule 5).
    public var mfaEnrollmentRequired: Bool?

    /// A result with the four common members.
    public init(localId: String, idToken: String, refreshToken: String, expiresIn: Int) {
        self.localId = localId
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}
