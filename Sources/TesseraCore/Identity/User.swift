public import TesseraJSON

/// A user as the API shows it (API §3 `User`): to its owner through `accounts.lookup` and to admins.
public struct User: Codable, Sendable, Equatable {
    public var localId: String
    public var email: String?
    public var emailVerified: Bool
    public var phoneNumber: String?
    public var displayName: String?
    public var disabled: Bool
    /// RFC 3339.
    public var createdAt: String
    /// RFC 3339; absent until the first completed sign-in.
    public var lastLoginAt: String?
    public var tenantId: String?
    /// `password` and/or `phone`: the first factors this user can sign in with.
    public var providers: [String]
    public var mfaInfo: [MfaEnrollment]
}

/// One second-factor enrolment as the API shows it (API §3 `MfaEnrollment`): `phoneInfo` is the full number for
/// the owner and admins and the masked number in a challenge; `totpInfo` is always `{}`.
public struct MfaEnrollment: Codable, Sendable, Equatable {
    public var mfaEnrollmentId: String
    public var displayName: String?
    /// RFC 3339.
    public var enrolledAt: String
    public var phoneInfo: String?
    public var totpInfo: JSONObject?

    /// Creates an enrolment description.
    public init(
        mfaEnrollmentId: String, displayName: String?, enrolledAt: String, phoneInfo: String? = nil,
        totpInfo: JSONObject? = nil
    ) {
        self.mfaEnrollmentId = mfaEnrollmentId
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.phoneInfo = phoneInfo
        self.totpInfo = totpInfo
    }
}
