import FoundationEssentials
import Logging
import MultiFactor
import RecoveryCodeFactor
import TOTPFactor
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraMetrics
import TesseraPostgres
import TesseraTestSupport
import Testing

/// A router with the TOTP, echo and recovery-code factors over the test database, and the steps tests repeat.
struct MFAHarness {
    let core: CoreHarness
    let router: MultiFactorRouter
    /// The password first factor over ``router``.
    var firstFactor: FirstFactorSignIn { FirstFactorSignIn(router: router) }
    let metrics: MetricsRegistry

    static let password = "correct horse battery"
    static let registry = FactorRegistry([TOTPFactor(), EchoFactor(), RecoveryCodeFactor()])
    static let migrations = CoreMigrations.all + MultiFactorMigrations.all + registry.migrations

    /// Runs `body` with a fresh router.
    static func run<T>(_ body: (MFAHarness) async throws -> T) async throws -> T {
        try await CoreHarness.run(migrations: migrations) { core in
            try await body(MFAHarness(core: core))
        }
    }

    init(core: CoreHarness) {
        self.core = core
        metrics = MetricsRegistry()
        router = MultiFactorRouter(
            services: core.services, registry: Self.registry, logger: Logger(label: "mfa-test"), metrics: metrics)
    }

    var clock: ManualWallClock { core.clock }

    /// A new tenant whose `mfaConfig` is `mfa` (nil: inherit the project's).
    func tenant(mfa: JSONValue?) async throws -> String {
        let id = "mfa-\(UInt32.random(in: 0 ... .max))"
        var json: JSONObject = ["displayName": "MFA Test"]
        if let mfa { json["mfaConfig"] = mfa }
        try await setTenant(id, json: json, create: true)
        return id
    }

    /// Replaces tenant `id`'s configuration with `json`.
    func setTenant(_ id: String, json: JSONObject, create: Bool = false) async throws {
        let text = JSONValue.object(try Tenant(json: json, tenantId: id).json).description
        if create {
            try await core.sql(
                "INSERT INTO tenants (tenant_id, config, created_at, updated_at) VALUES ($1, $2::text::jsonb, now(), now())",
                [id, text])
        } else {
            try await core.sql("UPDATE tenants SET config = $2::text::jsonb WHERE tenant_id = $1", [id, text])
            core.tenantChanged(id)
        }
    }

    /// TOTP enabled with `adjacentIntervals`, and the echo factor (enabled with any state but DISABLED).
    static func totp(_ adjacentIntervals: Int = 5, state: String = "ENABLED") -> JSONValue {
        [
            "state": .string(state),
            "providerConfigs": [
                ["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": .integer(Int64(adjacentIntervals))]]
            ],
        ]
    }

    /// A password user of `tenantID` with a verified address; returns its id and a fresh sign-in's tokens.
    func verifiedUser(tenantID: String?) async throws -> (email: String, tokens: TokenResult) {
        let email = CoreHarness.email("mfa")
        let signedUp = try await firstFactor.signUp(
            email: email, password: Self.password, displayName: nil, tenantID: tenantID)
        try await core.sql("UPDATE users SET email_verified = true WHERE user_id = $1", [signedUp.localId])
        return (email, try await tokens(email, tenantID: tenantID))
    }

    /// The tokens of a sign-in that must not be challenged.
    func tokens(_ email: String, tenantID: String?) async throws -> TokenResult {
        guard case .tokens(let tokens) = try await signIn(email, tenantID: tenantID) else {
            throw UnexpectedOutcome(description: "expected tokens, got an MFA challenge")
        }
        return tokens
    }

    /// Signs in with the harness password.
    func signIn(_ email: String, tenantID: String?) async throws -> SignInOutcome {
        try await firstFactor.signInWithPassword(email: email, password: Self.password, tenantID: tenantID)
    }

    /// A started TOTP enrolment.
    struct TOTPStart: Sendable {
        let sessionInfo: String
        let secret: [UInt8]
        let info: JSONObject
    }

    /// Starts a TOTP enrolment; returns the session info and the secret.
    func startTOTP(_ idToken: String, tenantID: String?) async throws -> TOTPStart {
        let started = try await router.startEnrollment(
            EnrollmentStartRequest(idToken: idToken, tenantID: tenantID, languageCode: nil, factor: "totp", info: [:]))
        let info = try #require(started.result["totpSessionInfo"]?.objectValue)
        let key = try #require(info["sharedSecretKey"]?.stringValue)
        return TOTPStart(
            sessionInfo: try #require(info["sessionInfo"]?.stringValue), secret: try Base32.decode(key), info: info)
    }

    /// Finishes a TOTP enrolment with `code`.
    func finalizeTOTP(
        _ idToken: String, sessionInfo: String, code: String, tenantID: String?
    ) async throws -> TokenResult {
        try await router.finalizeEnrollment(
            EnrollmentFinalizeRequest(
                idToken: idToken, tenantID: tenantID, displayName: "phone app", factor: "totp",
                info: ["sessionInfo": .string(sessionInfo), "verificationCode": .string(code)]))
    }

    /// Enrols TOTP for the user of `idToken` with the code of the current step; returns the enrolment and secret.
    func enrollTOTP(_ idToken: String, tenantID: String?) async throws -> (enrollmentID: String, secret: [UInt8]) {
        let started = try await startTOTP(idToken, tenantID: tenantID)
        let result = try await finalizeTOTP(
            idToken, sessionInfo: started.sessionInfo, code: try code(started.secret), tenantID: tenantID)
        return (try #require(result.mfaEnrollmentId), started.secret)
    }

    /// The TOTP code of `secret` `steps` steps from now.
    func code(_ secret: [UInt8], steps: Int = 0) throws -> String {
        try OneTimePassword(secret: secret).code(at: Int64(clock.now().timeIntervalSince1970) + Int64(steps * 30))
    }

    /// The pending credential of a sign-in that must be challenged.
    func challenge(_ email: String, tenantID: String?) async throws -> MFAChallenge {
        guard case .challenge(let challenge) = try await signIn(email, tenantID: tenantID) else {
            throw UnexpectedOutcome(description: "expected an MFA challenge")
        }
        return challenge
    }

    /// `mfaSignIn.finalize` with a TOTP code.
    func finishTOTP(
        _ credential: String, enrollmentID: String?, code: String, tenantID: String?
    ) async throws -> TokenResult {
        try await router.finalizeSignIn(
            SignInFinalizeRequest(
                pendingCredential: credential, enrollmentID: enrollmentID, tenantID: tenantID, factor: "totp",
                info: ["verificationCode": .string(code)]))
    }
}

/// A sign-in answered the other way than the test expected.
struct UnexpectedOutcome: Error, CustomStringConvertible {
    let description: String
}
