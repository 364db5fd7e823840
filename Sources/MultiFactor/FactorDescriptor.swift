public import FoundationEssentials
public import TesseraPostgres

/// What a factor declares about itself (the "factory" half of a plugin, after Keycloak): its id, the members it
/// adds to the multi-factor methods, its `amr` value and name, how the login pages drive it, how long its sessions
/// last, and the migrations of its own tables. The router, the token endpoints and the login pages read nothing
/// else about a factor, so a new factor needs no change outside its own folder.
///
/// The self-description is plain data with a JSON form, for a factor served remotely that sends it as a document:
/// `amr` and `displayName` are strings, and `loginPages` is ``FactorLoginPages/json``.
public struct FactorDescriptor: Sendable {
    /// The factor's id.
    public var id: FactorID
    /// The `amr` value (RFC 8176) of a sign-in that passed this factor (`otp` for TOTP, `sms` for SMS). JSON:
    /// `amr`.
    public var amr: String
    /// What the factor is called on pages (`Authenticator app`, `Text message (SMS)`). JSON: `displayName`.
    public var displayName: String
    /// How the login pages drive the factor; nil when they cannot (its enrolments are then not offered on the
    /// pages, which send the user to the app). JSON: `loginPages`.
    public var loginPages: FactorLoginPages?
    /// The `mfaEnrollment.start` param that selects this factor (`totpEnrollmentInfo`).
    public var enrollmentInfo: FactorMember
    /// The `mfaEnrollment.start` result member (`totpSessionInfo`).
    public var enrollmentResult: FactorMember
    /// The param of `mfaEnrollment.finalize` and `mfaSignIn.finalize` that selects this factor
    /// (`totpVerificationInfo`). At enrolment it must carry the `sessionInfo` of the start step.
    public var verificationInfo: FactorMember
    /// For factors with a sign-in start step (SMS), the `mfaSignIn.start` param and result member; nil when the
    /// code is checked without one (TOTP). With a start step, the sign-in verification info must carry the
    /// `sessionInfo` the start step returned.
    public var signInStart: SignInStartMembers?
    /// How long an enrolment session (from start to finalize) lasts.
    public var enrollmentLifetime: TimeInterval
    /// How long a sign-in session of the start step lasts (unused without one).
    public var signInLifetime: TimeInterval
    /// The migrations of the factor's own tables, under a module name of its own.
    public var migrations: [Migration]
    /// How a verification info may name an enrolment instead of `mfaEnrollmentId` (the SMS factor's
    /// `phoneNumber`, full or masked); nil when only the id names one. JSON: `enrollmentNamedBy`.
    public var enrollmentNamedBy: EnrollmentReference?
    /// Whether the factor is a backup (recovery codes): a user has at most one enrolment of it, which a new one
    /// replaces in the same transaction; it can only be enrolled while the user has an enrolment of another
    /// factor (`OPERATION_NOT_ALLOWED`); it is never offered as the one factor `MANDATORY` demands; and every
    /// sign-in with it is written to the audit log. JSON: `backup` (optional, false).
    public var isBackup: Bool

    /// A descriptor with every part given. `amr` and `displayName` default to the id.
    public init(
        id: FactorID, amr: String? = nil, displayName: String? = nil, enrollmentInfo: FactorMember,
        enrollmentResult: FactorMember, verificationInfo: FactorMember, signInStart: SignInStartMembers? = nil,
        enrollmentLifetime: TimeInterval, signInLifetime: TimeInterval = 0, loginPages: FactorLoginPages? = nil,
        migrations: [Migration] = [], enrollmentNamedBy: EnrollmentReference? = nil, isBackup: Bool = false
    ) {
        self.id = id
        self.amr = amr ?? id.rawValue
        self.displayName = displayName ?? id.rawValue
        self.loginPages = loginPages
        self.enrollmentInfo = enrollmentInfo
        self.enrollmentResult = enrollmentResult
        self.verificationInfo = verificationInfo
        self.signInStart = signInStart
        self.enrollmentLifetime = enrollmentLifetime
        self.signInLifetime = signInLifetime
        self.migrations = migrations
        self.enrollmentNamedBy = enrollmentNamedBy
        self.isBackup = isBackup
    }
}

/// The members of a factor's `mfaSignIn.start` step: the param that selects it (`phoneSignInInfo`, optional in
/// the call) and the result member (`phoneResponseInfo`).
public struct SignInStartMembers: Sendable {
    /// The param.
    public var info: FactorMember
    /// The result member.
    public var result: FactorMember

    /// The two members.
    public init(info: FactorMember, result: FactorMember) {
        self.info = info
        self.result = result
    }
}
