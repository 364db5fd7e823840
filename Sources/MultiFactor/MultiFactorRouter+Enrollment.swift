import FoundationEssentials
import Logging
public import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraPostgres

extension MultiFactorRouter {
    /// `mfaEnrollment.start`: checks the preconditions of API §4 rules 2 and 3, then lets the factor make its
    /// challenge, kept in a factor session until finalize.
    public func startEnrollment(_ request: EnrollmentStartRequest) async throws -> EnrollmentStarted {
        try await recorded(request.factor, "enrollment_start", tenantID: request.tenantID) {
            try await database.withPool { pool in
                let factor = try await self.factor(request.factor, pool)
                let now = self.clock.now()
                let (config, _, user) = try await self.enrollingUser(
                    pool, idToken: request.idToken, tenantID: request.tenantID, factor: factor, now: now)
                let enrollments = try await EnrollmentStore.all(pool, keyRing: self.keyRing, userID: user.userID)
                try Self.checkRoom(for: factor, among: enrollments)
                let (session, hash) = try FactorSessions.handle(
                    lifetime: factor.descriptor.enrollmentLifetime, now: now)
                let challenge = try await factor.startEnrollment(
                    request.info, for: user, session: session,
                    in: self.context(
                        pool, config, now: now, languageCode: request.languageCode,
                        clientAddress: request.clientAddress, appVerifiedByServer: request.appVerifiedByServer,
                        enrollments: Self.ofFactor(factor, enrollments), user: user))
                try await FactorSessions.store(
                    pool, keyRing: self.keyRing, hash: hash, session: session, purpose: .enroll, userID: user.userID,
                    factor: factor.descriptor.id, state: challenge.state)
                return EnrollmentStarted(
                    result: [factor.descriptor.enrollmentResult.name: .object(challenge.response)],
                    display: challenge.display)
            }
        }
    }

    /// `mfaEnrollment.finalize`: checks the preconditions again, takes an attempt of the session and lets the
    /// factor check the code (outside any transaction; an attempt is given back when the factor cannot answer),
    /// then stores the new enrolment with what the factor returned in one transaction that consumes the session
    /// (at most five per user, counted under a lock on the user). Returns tokens of the same sign-in that name the
    /// new second factor.
    public func finalizeEnrollment(_ request: EnrollmentFinalizeRequest) async throws -> TokenResult {
        let factorID = request.factor
        return try await recorded(factorID, "enrollment_finalize", tenantID: request.tenantID) {
            let sessionInfo = try ParamReader(request.info, allowed: Set(request.info.keys))
                .credential("sessionInfo", missing: .missingSessionInfo)
            let displayName = try DisplayName.check(request.displayName)
            return try await database.withPool { pool in
                let factor = try await self.factor(factorID, pool)
                let now = self.clock.now()
                let (config, claims, user) = try await self.enrollingUser(
                    pool, idToken: request.idToken, tenantID: request.tenantID, factor: factor, now: now)
                let session = try await FactorSessions.open(
                    pool, keyRing: self.keyRing, sessionInfo: sessionInfo, purpose: .enroll, userID: user.userID,
                    now: now
                ) { $0.factor == factorID }
                try await AttemptLedger.take(
                    pool, table: "mfa_sessions", hash: session.hash, expiresAt: session.expiresAt, now: now)
                let enrollments = try await EnrollmentStore.all(pool, keyRing: self.keyRing, userID: user.userID)
                try Self.checkRoom(for: factor, among: enrollments)
                let enrolled = try await self.givingBackWhenUnavailable {
                    try await AttemptLedger.giveBack(pool, table: "mfa_sessions", hash: session.hash)
                } check: {
                    try await factor.finalizeEnrollment(
                        request.info, state: session.state, for: user,
                        in: self.context(
                            pool, config, now: now, enrollments: Self.ofFactor(factor, enrollments), user: user))
                }
                let enrollment = Enrollment(
                    id: try SecureRandom.identifier(), userID: user.userID, factor: factorID, displayName: displayName,
                    enrolledAt: now, publicInfo: enrolled.publicInfo)
                try await pool.transaction { transaction in
                    let count = try await EnrollmentStore.lockOwnerAndCount(transaction, userID: user.userID)
                    // A backup factor's new enrolment replaces the old one, under the same lock on the user.
                    let replaced =
                        factor.descriptor.isBackup
                        ? try await EnrollmentStore.deleteAll(transaction, userID: user.userID, factor: factorID) : 0
                    guard count - replaced < Self.maxEnrollments else { throw Self.limitExceeded }
                    try await FactorSessions.consume(transaction, session)
                    try await EnrollmentStore.insert(transaction, keyRing: self.keyRing, enrollment, enrolled)
                }
                let signIn = SignInSession(
                    userID: user.userID, tenantID: user.tenantID,
                    authTime: Date(timeIntervalSince1970: TimeInterval(claims.authTime)),
                    provider: claims.signInProvider, secondFactor: factorID.rawValue, secondFactorID: enrollment.id)
                var result = try await self.tokens.issue(pool, session: signIn, user: user)
                result.mfaEnrollmentId = enrollment.id
                return result
            }
        }
    }

    /// Whether the user may enrol `factor` beside `enrollments`: at most ``maxEnrollments`` in all
    /// (`SECOND_FACTOR_LIMIT_EXCEEDED`), an enrolment of a backup factor replacing the one the user has; and a
    /// backup factor only beside an enrolment of another factor (`OPERATION_NOT_ALLOWED`).
    static func checkRoom(for factor: any Factor, among enrollments: [LockableEnrollment]) throws(AuthError) {
        let id = factor.descriptor.id
        let others = enrollments.filter { $0.enrollment.factor != id }
        guard factor.descriptor.isBackup else {
            guard enrollments.count < maxEnrollments else { throw limitExceeded }
            return
        }
        guard !others.isEmpty else {
            throw AuthError(
                .operationNotAllowed, "Enrol another second factor first: \(factor.descriptor.displayName) is a backup."
            )
        }
        guard others.count < maxEnrollments else { throw limitExceeded }
    }

    /// `mfaEnrollment.withdraw`: removes one of the caller's enrolments (`MFA_ENROLLMENT_NOT_FOUND` for any
    /// other id) and revokes every token of the user, in one transaction (API §4 rule 9).
    public func withdrawEnrollment(idToken: String, enrollmentID: String, tenantID: String?) async throws {
        try await database.withPool { pool in
            _ = try await self.configs.forUserMethod(pool, tenantID: tenantID)
            let (_, user) = try await self.tokens.verify(
                pool, idToken: idToken, tenantID: tenantID, acceptingEnrollmentRequired: true)
            let now = self.clock.now()
            try await pool.transaction { transaction in
                guard try await EnrollmentStore.delete(transaction, enrollmentID: enrollmentID, userID: user.userID)
                else { throw AuthError(.mfaEnrollmentNotFound, "The user has no enrolment \(enrollmentID).") }
                try await UserStore.revokeTokens(transaction, userID: user.userID, now: now)
            }
            self.logger.info(
                "mfa enrolment withdrawn", metadata: ["user": .string(user.userID), "tenant": .string(tenantID ?? "-")])
        }
    }

    /// The user of `idToken` when they may enrol `factor` now (API §4 rules 2 and 3), with the configuration in
    /// force and the token's claims: `OPERATION_NOT_ALLOWED` when the factor is not enabled,
    /// `UNSUPPORTED_FIRST_FACTOR` after a phone sign-in (first, as no e-mail can fix it), `UNVERIFIED_EMAIL`,
    /// `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` when the sign-in is older than 300 s.
    private func enrollingUser(
        _ pool: PostgresPool, idToken: String, tenantID: String?, factor: any Factor, now: Date
    ) async throws -> (EffectiveConfig, IDTokenClaims, UserRecord) {
        let config = try await configs.forUserMethod(pool, tenantID: tenantID)
        let (claims, user) = try await tokens.verify(
            pool, idToken: idToken, tenantID: tenantID, acceptingEnrollmentRequired: true)
        guard factor.isEnabled(by: config.mfa) else {
            throw AuthError(.operationNotAllowed, "The \(factor.descriptor.id) factor is not enabled.")
        }
        guard Self.mfaCapableProviders.contains(claims.signInProvider) else {
            throw AuthError(.unsupportedFirstFactor, "A \(claims.signInProvider) sign-in cannot enrol a second factor.")
        }
        guard user.email != nil, user.emailVerified else {
            throw AuthError(.unverifiedEmail, "Verify the e-mail address before enrolling a second factor.")
        }
        guard now.timeIntervalSince1970 - TimeInterval(claims.authTime) <= Self.recentSignIn else {
            throw AuthError(.credentialTooOldLoginAgain, "Sign in again to enrol a second factor.")
        }
        return (config, claims, user)
    }

    private static var limitExceeded: AuthError {
        AuthError(.secondFactorLimitExceeded, "A user may have at most \(maxEnrollments) second factors.")
    }
}
