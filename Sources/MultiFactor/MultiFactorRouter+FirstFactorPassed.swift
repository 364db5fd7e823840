public import FoundationEssentials
public import TesseraCore
public import TesseraPostgres

extension MultiFactorRouter {
    /// What follows a passed first factor (API §4 rules 4 and 5): with at least one enrolment of an enabled factor,
    /// a challenge listing exactly those enrolments (masked) and a pending credential; otherwise tokens, which ask
    /// for an enrolment under `MANDATORY`. `lastLoginAt` moves only when tokens are issued.
    ///
    /// `authTime` is when the first factor was passed: now, unless an earlier sign-in is being stepped up (a browser
    /// session adding its second factor), whose first factor keeps its own time, so the step-up does not make an
    /// old session pass the recency rule (API §4 rule 3).
    public func completeFirstFactor(
        _ pool: PostgresPool, user: UserRecord, provider: String, config: EffectiveConfig, authTime: Date? = nil
    ) async throws -> SignInOutcome {
        let now = clock.now()
        let authTime = min(authTime ?? now, now)
        let registry = try await directory.registry(pool)
        let usable = try await usableEnrollments(pool, userID: user.userID, config: config, registry: registry)
        guard usable.isEmpty else {
            let handle = try await PendingCredentials.create(
                pool, userID: user.userID, tenantID: user.tenantID, authTime: authTime, provider: provider, now: now)
            return .challenge(
                MFAChallenge(
                    mfaPendingCredential: handle, mfaInfo: usable.map { view($0.0, of: $0.1, masked: true) },
                    localId: user.userID))
        }
        let session = SignInSession(
            userID: user.userID, tenantID: user.tenantID, authTime: authTime, provider: provider,
            mfaEnrollmentRequired: Self.enrollmentRequired(config, registry))
        return .tokens(try await signIn(pool, user: user, session: session, now: now))
    }

    /// Whether a passed first factor of `userID` under `config` leads to a second-factor step (API §4 rules 4 and
    /// 5): a challenge, because the user has a usable enrolment, or an enrolment demanded by `MANDATORY`. Issues
    /// nothing; a signed-in browser session that never passed a second factor asks this before it is reused.
    public func requiresSecondFactor(
        _ pool: PostgresPool, userID: String, config: EffectiveConfig
    ) async throws -> Bool {
        let registry = try await directory.registry(pool)
        let usable = try await usableEnrollments(pool, userID: userID, config: config, registry: registry)
        return !usable.isEmpty || Self.enrollmentRequired(config, registry)
    }

    /// Whether `phoneNumber` belongs to a multi-factor user of `tenantID`, which a phone-number first factor must
    /// refuse (`UNSUPPORTED_FIRST_FACTOR`, API §3): an account of the tenant with that number and at least one
    /// enrolment of any factor, or an account of the tenant that enrolled the number as its second factor `factor`
    /// (a factor, like the SMS factor, whose enrolments keep the number as their unique key). Asked on `db`, so a
    /// caller's transaction sees its own writes.
    public func isMultiFactorPhoneNumber(
        _ db: some SQLRunner, _ phoneNumber: String, enrolledAs factor: FactorID, tenantID: String?
    ) async throws -> Bool {
        try await EnrollmentStore.isMultiFactorPhoneNumber(db, phoneNumber, enrolledAs: factor, tenantID: tenantID)
    }

    /// The user's enrolments whose factor `config` enables among the factors offered now, each with its factor.
    func usableEnrollments(
        _ pool: PostgresPool, userID: String, config: EffectiveConfig
    ) async throws -> [(Enrollment, any Factor)] {
        try await usableEnrollments(pool, userID: userID, config: config, registry: try await directory.registry(pool))
    }

    /// The user's enrolments whose factor `config` enables, each with its factor (API §4 rule 4).
    private func usableEnrollments(
        _ pool: PostgresPool, userID: String, config: EffectiveConfig, registry: FactorRegistry
    ) async throws -> [(Enrollment, any Factor)] {
        // No factor is enabled while MFA is off (rule 2), so no enrolment is usable: skip the query.
        guard config.mfa.state != .disabled else { return [] }
        return try await EnrollmentStore.all(pool, keyRing: keyRing, userID: userID).compactMap { stored in
            registry.usableFactor(of: stored.enrollment, under: config.mfa).map { (stored.enrollment, $0) }
        }
    }

    /// Records a completed sign-in (`lastLoginAt`) and issues its tokens, in one round trip and one transaction;
    /// the statements of `leading` run first in that transaction (the second factor's record), and a failure of any
    /// of them rolls it all back.
    func signIn(
        _ pool: PostgresPool, user: UserRecord, session: SignInSession, now: Date, leading: [PostgresQuery] = []
    ) async throws -> TokenResult {
        var user = user
        user.lastLoginAt = now
        return try await tokens.issue(
            pool, session: session, user: user,
            leading: leading
                + [UserStore.recordSignIn(userID: user.userID, at: now)])
    }
}
