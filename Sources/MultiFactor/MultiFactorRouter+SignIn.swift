import FoundationEssentials
public import TesseraCore
public import TesseraJSON
import TesseraPostgres

extension MultiFactorRouter {
    /// `mfaSignIn.start`: for factors with a start step (SMS), sends the challenge for one of the user's
    /// enrolments and opens a sign-in session bound to the pending credential and the enrolment.
    public func startSignIn(_ request: SignInStartRequest) async throws -> JSONObject {
        try await database.withPool { pool in
            let now = self.clock.now()
            let (config, credential, user, enrollment, factor) = try await self.challenged(
                pool, handle: request.pendingCredential, tenantID: request.tenantID, now: now
            ) { try Self.enrollment(request.enrollmentID, among: $0) }
            let descriptor = factor.descriptor
            return try await self.recorded(descriptor.id, "sign_in_start", tenantID: user.tenantID) {
                guard let start = descriptor.signInStart else {
                    throw AuthError(
                        .invalidArgument,
                        "The \(descriptor.id) factor has no start step: call mfaSignIn.finalize with the code.")
                }
                if let info = request.info, info.factor != descriptor.id {
                    throw AuthError(.invalidArgument, "The enrolment is not a \(info.factor) factor.")
                }
                let (session, hash) = try FactorSessions.handle(lifetime: descriptor.signInLifetime, now: now)
                let challenge = try await factor.startSignIn(
                    enrollment, request.info?.value ?? JSONObject(), session: session,
                    in: self.context(
                        pool, config, now: now, languageCode: request.languageCode,
                        clientAddress: request.clientAddress, appVerifiedByServer: request.appVerifiedByServer,
                        user: user))
                try await FactorSessions.store(
                    pool, keyRing: self.keyRing, hash: hash, session: session, purpose: .signIn, userID: user.userID,
                    factor: descriptor.id, enrollmentID: enrollment.id, credentialHash: credential.hash,
                    state: challenge.state)
                return [start.result.name: .object(challenge.response)]
            }
        }
    }

    /// `mfaSignIn.finalize`: takes an attempt of the pending credential, of the start step's session (when the
    /// factor has one) and of the enrolment (one statement), lets the factor check the code (outside any transaction;
    /// the attempts are given back when the factor cannot answer), then, in one pipeline and one transaction,
    /// consumes the credential, records the verdict's replay mark by a compare-and-swap, clears the enrolment's
    /// failures, moves `lastLoginAt` and issues tokens that name the second factor (API §4 rules 6 to 8); a replay
    /// or a credential used meanwhile rolls it all back.
    public func finalizeSignIn(_ request: SignInFinalizeRequest) async throws -> TokenResult {
        try await recorded(request.factor, "sign_in_finalize", tenantID: request.tenantID) {
            try await database.withPool { pool in
                let factor = try await self.factor(request.factor, pool)
                let now = self.clock.now()
                let (config, credential, user, enrollment, _) = try await self.challenged(
                    pool, handle: request.pendingCredential, tenantID: request.tenantID, now: now
                ) { try Self.named(request, of: factor, among: $0) }
                let session = try await self.signInSession(
                    pool, factor: factor, info: request.info, credential: credential, enrollmentID: enrollment.id,
                    now: now)
                let locked = try await AttemptLedger.takeForSignIn(
                    pool, credential: (credential.hash, credential.expiresAt),
                    session: session.map { ($0.hash, $0.expiresAt) }, enrollmentID: enrollment.id, now: now)
                let verdict = try await self.givingBackWhenUnavailable {
                    try await AttemptLedger.giveBack(pool, table: "mfa_pending_credentials", hash: credential.hash)
                    if let session { try await AttemptLedger.giveBack(pool, table: "mfa_sessions", hash: session.hash) }
                    try await AttemptLedger.giveBack(pool, enrollmentID: enrollment.id, locked: locked)
                } check: {
                    try await factor.verifySignIn(
                        enrollment, request.info, state: session?.state,
                        in: self.context(pool, config, now: now, user: user))
                }
                // What the owner sees may follow the state (the recovery codes left): every reader of the stored
                // public info (an admin's users.get) then sees it too.
                let shown = verdict.state.flatMap { state in
                    var moved = enrollment
                    moved.state = state
                    let shown = factor.publicInfo(of: moved, masked: false)
                    return shown == enrollment.publicInfo ? nil : shown
                }
                var record = [
                    try EnrollmentStore.recordSignIn(
                        keyRing: self.keyRing, verdict, enrollmentID: enrollment.id, credentialHash: credential.hash,
                        publicInfo: shown)
                ]
                if factor.descriptor.isBackup {
                    record.append(
                        try Self.backupUse(
                            factor: factor, enrollment: enrollment, verdict: verdict, user: user, now: now))
                }
                let signIn = SignInSession(
                    userID: user.userID, tenantID: user.tenantID, authTime: credential.authTime,
                    provider: credential.provider, secondFactor: factor.descriptor.id.rawValue,
                    secondFactorID: enrollment.id)
                do {
                    return try await self.signIn(pool, user: user, session: signIn, now: now, leading: record)
                } catch let error as PostgresError {
                    throw EnrollmentStore.refusal(error) ?? error
                }
            }
        }
    }

    /// The audit entry of a sign-in with a backup factor (a recovery code), for the pipeline that records it: the
    /// user's own act, actor `user:<localId>`, method `mfaSignIn.finalize`, target
    /// `users/<localId>/mfaEnrollments/<id>`, and after it what the owner now sees of the enrolment (the codes left).
    static func backupUse(
        factor: any Factor, enrollment: Enrollment, verdict: SignInVerdict, user: UserRecord, now: Date
    ) throws -> PostgresQuery {
        var used = enrollment
        if let state = verdict.state { used.state = state }
        let actor = AuditLog.Actor(
            principal: AdminPrincipal(
                keyID: "user:" + user.userID, scope: user.tenantID.map { .tenant($0) } ?? .project),
            method: "mfaSignIn.finalize")
        return try AuditLog.entry(
            actor: actor, target: "users/\(user.userID)/mfaEnrollments/\(enrollment.id)", tenantID: user.tenantID,
            before: nil,
            after: [
                "factorId": .string(factor.descriptor.id.rawValue),
                "factorInfo": .object(factor.publicInfo(of: used, masked: false)),
            ], now: now)
    }

    /// The configuration in force, the open pending credential, its user, and the enrolment `pick` chooses among
    /// the user's, with its enabled, unlocked factor. The credential, its user and the user's enrolments are read
    /// in one round trip.
    private func challenged(
        _ pool: PostgresPool, handle: String, tenantID: String?, now: Date,
        pick: ([LockableEnrollment]) throws -> LockableEnrollment
    ) async throws -> (EffectiveConfig, PendingCredential, UserRecord, Enrollment, any Factor) {
        let config = try await configs.forUserMethod(pool, tenantID: tenantID)
        let hash = try SecretDigest.of(handle)
        let found = try await pool.pipeline([
            PendingCredentials.find(hash: hash),
            UserStore.find(idFrom: PendingCredentials.owner, [hash]),
            PostgresQuery(EnrollmentStore.all(userIDFrom: PendingCredentials.owner), [hash]),
        ])
        let credential = try PendingCredentials.open(found[0], hash: hash, tenantID: tenantID, now: now)
        let user = try Self.signingInUser(try UserStore.user(found[1], tenantID: credential.tenantID))
        let stored = try pick(try EnrollmentStore.enrollments(found[2], keyRing: keyRing, userID: user.userID))
        guard let factor = try await directory.registry(pool).factor(stored.enrollment.factor) else {
            throw AuthError(.operationNotAllowed, "The \(stored.enrollment.factor) factor is not offered.")
        }
        try Self.checkEnabled(factor, config)
        try AttemptLedger.checkUnlocked(lockedUntil: stored.lockedUntil, failures: stored.failures, now: now)
        return (config, credential, user, stored.enrollment, factor)
    }

    /// The user a pending credential was issued to (`found`: nil when they no longer exist in its tenant), if they
    /// are still enabled.
    private static func signingInUser(_ found: UserRecord?) throws -> UserRecord {
        guard let user = found else {
            throw AuthError(.invalidMFAPendingCredential, "The pending credential is invalid or has been used.")
        }
        guard !user.disabled else { throw AuthError(.userDisabled, "The user account has been disabled.") }
        return user
    }

    /// The open sign-in session named in `info` for factors with a start step, bound to this credential and
    /// enrolment; nil for factors without one.
    private func signInSession(
        _ pool: PostgresPool, factor: any Factor, info: JSONObject, credential: PendingCredential,
        enrollmentID: String, now: Date
    ) async throws -> StoredSession? {
        guard factor.descriptor.signInStart != nil else { return nil }
        let sessionInfo = try ParamReader(info, allowed: Set(info.keys)).credential(
            "sessionInfo", missing: .missingSessionInfo)
        return try await FactorSessions.open(
            pool, keyRing: keyRing, sessionInfo: sessionInfo, purpose: .signIn, userID: credential.userID, now: now
        ) { $0.enrollmentID == enrollmentID && $0.credentialHash == credential.hash }
    }

    /// The enrolment a finalize request names: by id, or else by what its factor recognizes in the info
    /// (`MISSING_MFA_ENROLLMENT_ID` when neither names one). It must be of the request's factor.
    private static func named(
        _ request: SignInFinalizeRequest, of factor: any Factor, among enrollments: [LockableEnrollment]
    ) throws(AuthError) -> LockableEnrollment {
        let stored: LockableEnrollment
        if let enrollmentID = request.enrollmentID {
            stored = try enrollment(enrollmentID, among: enrollments)
        } else {
            let candidates = enrollments.map(\.enrollment).filter { $0.factor == factor.descriptor.id }
            guard let match = factor.enrollment(matching: request.info, among: candidates),
                let found = enrollments.first(where: { $0.enrollment.id == match.id })
            else { throw AuthError(.missingMFAEnrollmentID, "mfaEnrollmentId is required.") }
            stored = found
        }
        guard stored.enrollment.factor == factor.descriptor.id else {
            throw AuthError(
                .invalidArgument, "The enrolment is a \(stored.enrollment.factor) factor, not \(factor.descriptor.id).")
        }
        return stored
    }

    private static func enrollment(
        _ id: String, among enrollments: [LockableEnrollment]
    ) throws(AuthError)
        -> LockableEnrollment
    {
        guard let found = enrollments.first(where: { $0.enrollment.id == id }) else {
            throw AuthError(.mfaEnrollmentNotFound, "The user has no enrolment \(id).")
        }
        return found
    }

    private static func checkEnabled(_ factor: any Factor, _ config: EffectiveConfig) throws(AuthError) {
        guard factor.isEnabled(by: config.mfa) else {
            throw AuthError(.operationNotAllowed, "The \(factor.descriptor.id) factor is not enabled.")
        }
    }
}
