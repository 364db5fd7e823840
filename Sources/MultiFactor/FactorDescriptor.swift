public import FoundationEssentials
public import TesseraPostgres

/// What a factor declares about itself (the "factory" half of a plugin, after Keycloak): its id, the members it
/// adds to the multi-factor methods, how long its sessions last, and the migrations of its own tables. The router
/// reads nothing else about a factor, so a new factor needs no change to the router.
public struct FactorDescriptor: Sendable {
    /// The factor's id.
    public var id: FactorID
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

    /// A descriptor with every part given.
    public init(
        id: FactorID, enrollmentInfo: FactorMember, enrollmentResult: FactorMember, verificationInfo: FactorMember,
        signInStart: SignInStartMembers? = nil, enrollmentLifetime: TimeInterval, signInLifetime: TimeInterval = 0,
        migrations: [Migration] = []
    ) {
        self.id = id
        self.enrollmentInfo = enrollmentInfo
        self.enrollmentResult = enrollmentResult
        self.verificationInfo = verificationInfo
        self.signInStart = signInStart
        self.enrollmentLifetime = enrollmentLifetime
        self.signInLifetime = signInLifetime
        self.migrations = migrations
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
