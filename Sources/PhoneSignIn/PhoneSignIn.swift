public import FoundationEssentials
public import MultiFactor
public import PhoneCodes
public import TesseraCore
public import TesseraJSON
import TesseraPostgres

/// Phone sign-in, the phone number as first factor (API §3 `accounts.sendVerificationCode` and
/// `accounts.signInWithPhoneNumber`): a code sent by SMS signs in the account with that number, or creates one.
///
/// A number that belongs to a multi-factor user (an account with that number and an enrolment, or a number
/// enrolled as some account's second factor) cannot be a first factor: `UNSUPPORTED_FIRST_FACTOR`, and no code
/// is sent. Codes are valid 300 s; the router's per-handle attempt limit applies to each `sessionInfo`; a wrong
/// code leaves the session open and a right one ends it.
///
/// Phone sign-in is a first factor, not a plugin of the router: it sends its codes through the ``SMSCodeIssuer`` of
/// `PhoneCodes`, which the SMS second factor shares, keeps its sessions in `phone_sign_in_sessions` (created by
/// module `phone` of the migrations, ``PhoneMigrations``), and hands a passed code to the router.
public final class PhoneSignIn: Sendable {
    /// How long a sign-in code is valid (API §9).
    public static let codeLifetime: TimeInterval = 300
    /// The id of the SMS second factor, whose enrolments keep their number as unique key: a number enrolled under
    /// it belongs to a multi-factor user, so it is no first factor. The `PhoneFactor` plugin declares the same id;
    /// factor ids are stable (tokens, hints and configuration name them), so naming it here keeps phone sign-in
    /// independent of the plugin, which may even run as a factor service.
    public static let smsFactorID: FactorID = "phone"

    private let services: CoreServices
    private let router: MultiFactorRouter
    private let codes: SMSCodeIssuer

    /// Phone sign-in over the core services, completing sign-ins through `router` (which applies `MANDATORY`).
    public init(services: CoreServices, router: MultiFactorRouter, codes: SMSCodeIssuer) {
        self.services = services
        self.router = router
        self.codes = codes
    }

    /// `accounts.sendVerificationCode`: sends a sign-in code to `phoneNumber` and returns the `sessionInfo` to
    /// sign in with. `OPERATION_NOT_ALLOWED` where phone sign-in is off; `MISSING_PHONE_NUMBER`,
    /// `INVALID_PHONE_NUMBER`; then whatever the ``SMSCodeIssuer`` refuses (app verification, region, limits).
    ///
    /// A number that is a multi-factor user's is answered exactly like any other, and sent its code, after app
    /// verification and the send limits: refusing it here would tell anyone, for free, which numbers are second
    /// factors. Its owner learns it at sign-in, with the right code (`UNSUPPORTED_FIRST_FACTOR`); anyone else only
    /// ever sees `INVALID_CODE`.
    ///
    /// `appVerifiedByServer` is the login pages' call: the server vouches for itself as a first-party app (after
    /// its own proof of work and per-browser limit), as for the SMS factor's pages; every send limit still applies.
    public func sendVerificationCode(
        phoneNumber: String?, tenantID: String?, appVerification: JSONObject?, languageCode: String?,
        clientAddress: String?, appVerifiedByServer: Bool = false
    ) async throws -> String {
        try await services.database.withPool { pool in
            let config = try await self.config(pool, tenantID: tenantID)
            let phoneNumber = try PhoneNumber.checkedParam(phoneNumber)
            let credential = try AppCredential.read(appVerification)
            let now = self.services.clock.now()
            let handle = try SecretDigest.make()
            let digest = try await self.codes.issue(
                pool,
                SMSCodeIssuer.Request(
                    phoneNumber: phoneNumber, kind: .phoneSignIn, sessionInfo: handle.secret, credential: credential,
                    config: config, languageCode: languageCode, clientAddress: clientAddress,
                    appVerifiedByServer: appVerifiedByServer, now: now))
            try await pool.query(
                """
                INSERT INTO phone_sign_in_sessions (handle_hash, tenant_id, phone_number, code_digest, expires_at)
                VALUES ($1, $2, $3, $4, $5)
                """, [handle.digest, tenantID, phoneNumber, digest, now.addingTimeInterval(Self.codeLifetime)])
            return handle.secret
        }
    }

    /// `accounts.signInWithPhoneNumber`: checks `code` against the session and signs in the number's account,
    /// creating it on first use; the result adds `phoneNumber` and `isNewUser`. `MISSING_SESSION_INFO`,
    /// `MISSING_CODE`; `INVALID_SESSION_INFO` for an unknown or used session, `TENANT_ID_MISMATCH` for another
    /// tenant's, `SESSION_EXPIRED`, `TOO_MANY_ATTEMPTS_TRY_LATER`; `INVALID_CODE`; `UNSUPPORTED_FIRST_FACTOR` when
    /// the number is a multi-factor user's (said only after the right code); `USER_DISABLED`.
    public func signIn(sessionInfo: String?, code: String?, tenantID: String?) async throws -> TokenResult {
        let (outcome, phoneNumber, isNew) = try await signInOutcome(
            sessionInfo: sessionInfo, code: code, tenantID: tenantID)
        guard case .tokens(var result) = outcome else { throw Self.unsupported }
        result.phoneNumber = phoneNumber
        result.isNewUser = isNew
        return result
    }

    /// ``signIn(sessionInfo:code:tenantID:)`` for the login pages: the router's outcome as it is (tokens, which
    /// may demand an enrolment under `MANDATORY`), with the number and whether its account is new.
    public func signInOutcome(
        sessionInfo: String?, code: String?, tenantID: String?
    ) async throws
        -> (outcome: SignInOutcome, phoneNumber: String, isNew: Bool)
    {
        guard let sessionInfo, !sessionInfo.isEmpty else {
            throw AuthError(.missingSessionInfo, "sessionInfo is required.")
        }
        guard let code, !code.isEmpty else { throw AuthError(.missingCode, "code is required.") }
        return try await services.database.withPool { pool in
            let config = try await self.config(pool, tenantID: tenantID)
            let now = self.services.clock.now()
            let session = try await Self.open(pool, sessionInfo: sessionInfo, tenantID: tenantID, now: now)
            try await AttemptLedger.take(
                pool, table: "phone_sign_in_sessions", hash: session.hash, expiresAt: session.expiresAt, now: now)
            try await TestNumberAttempts.take(pool, config: config, phoneNumber: session.phoneNumber, now: now)
            guard PhoneCode.matches(code, digest: session.codeDigest, sessionInfo: sessionInfo) else {
                throw AuthError(.invalidCode, "The verification code is not valid.")
            }
            let (user, isNew) = try await pool.transaction { transaction in
                let consumed = try await transaction.query(
                    "DELETE FROM phone_sign_in_sessions WHERE handle_hash = $1 RETURNING 1", [session.hash])
                guard consumed.rowCount == 1 else { throw Self.usedSession }
                guard !(try await self.isMultiFactorNumber(transaction, session.phoneNumber, tenantID: tenantID))
                else { throw Self.unsupported }
                return try await self.services.accounts.phoneUser(
                    transaction, phoneNumber: session.phoneNumber, tenantID: tenantID, now: now)
            }
            let outcome = try await self.router.completeFirstFactor(pool, user: user, provider: "phone", config: config)
            return (outcome, session.phoneNumber, isNew)
        }
    }

    /// Whether `phoneNumber` belongs to a multi-factor user of `tenantID` (an account with that number and at least
    /// one enrolment, or an account that enrolled the number as its SMS second factor): such a number cannot be a
    /// first factor (`UNSUPPORTED_FIRST_FACTOR`). The router, which keeps the enrolments, answers.
    private func isMultiFactorNumber(
        _ db: some SQLRunner, _ phoneNumber: String, tenantID: String?
    ) async throws -> Bool {
        try await router.isMultiFactorPhoneNumber(db, phoneNumber, enrolledAs: Self.smsFactorID, tenantID: tenantID)
    }

    /// The configuration in force, where phone sign-in is on.
    private func config(_ pool: PostgresPool, tenantID: String?) async throws -> EffectiveConfig {
        let config = try await services.configs.forUserMethod(pool, tenantID: tenantID)
        guard config.phoneSignInEnabled else {
            throw AuthError(.operationNotAllowed, "Phone sign-in is disabled.")
        }
        return config
    }

    /// A stored sign-in session.
    private struct Session {
        let hash: [UInt8]
        let phoneNumber: String
        let codeDigest: [UInt8]
        let expiresAt: Date
    }

    /// The open session `sessionInfo` of `tenantID`.
    private static func open(
        _ pool: PostgresPool, sessionInfo: String, tenantID: String?, now: Date
    ) async throws -> Session {
        let hash = try SecretDigest.of(sessionInfo)
        let found = try await pool.query(
            """
            SELECT tenant_id, phone_number, code_digest, expires_at, attempts FROM phone_sign_in_sessions
            WHERE handle_hash = $1
            """, [hash])
        guard let row = found.rows.first else { throw usedSession }
        guard try row.decode(String?.self, at: 0) == tenantID else {
            throw AuthError(.tenantIDMismatch, "The sessionInfo belongs to another tenant.")
        }
        let session = Session(
            hash: hash, phoneNumber: try row.decode(String.self, at: 1),
            codeDigest: try row.decode([UInt8].self, at: 2), expiresAt: try row.decode(Date.self, at: 3))
        try AttemptLedger.checkOpen(expiresAt: session.expiresAt, attempts: try row.decode(Int.self, at: 4), now: now)
        return session
    }

    private static var usedSession: AuthError {
        AuthError(.invalidSessionInfo, "The sessionInfo is invalid or has been used.")
    }

    private static var unsupported: AuthError {
        AuthError(
            .unsupportedFirstFactor,
            "This number belongs to a multi-factor account: sign in with its first factor, then its second factor.")
    }
}
