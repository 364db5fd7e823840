public import FoundationEssentials
public import Logging
public import TesseraCore
import TesseraCrypto
public import TesseraMetrics
import TesseraPostgres

/// The multi-factor router (DESIGN §5): the public MFA methods of API §4 and the second-factor half of every
/// first-factor sign-in, dispatched over the registered ``Factor`` plugins.
///
/// The router owns everything a factor must not get wrong on its own: the effective configuration, the
/// preconditions of enrolment, pending credentials and factor sessions, attempt limits, token issuance and the
/// record of outcomes (logs and the `tessera_mfa_outcomes_total` metric). A factor only makes and checks its
/// challenges.
public final class MultiFactorRouter: Sendable {
    /// Enrolments a user may have (API §9).
    public static let maxEnrollments = 5
    /// How recent a sign-in must be to enrol a second factor (API §4 rule 3).
    public static let recentSignIn: TimeInterval = 300
    /// The first factors after which a second factor can be enrolled; phone sign-in is not one of them.
    public static let mfaCapableProviders: Set<String> = ["password"]

    /// The factors offered: the built-in ones and the factor services registered now.
    public let directory: FactorDirectory
    let database: PostgresClient
    let accounts: Accounts
    let tokens: Tokens
    let configs: ConfigStore
    let clock: any WallClock
    let keyRing: KeyRing
    let logger: Logger
    let outcomes: Counter?

    /// The built-in factors, whose members the OpenRPC document of the multi-factor methods lists.
    public var registry: FactorRegistry { directory.builtIn }

    /// A router over the core services and the built-in factors of `registry` only.
    public convenience init(
        services: CoreServices, registry: FactorRegistry, logger: Logger, metrics: MetricsRegistry? = nil
    ) {
        self.init(services: services, directory: FactorDirectory(builtIn: registry), logger: logger, metrics: metrics)
    }

    /// A router over the core services and the factors of `directory`. With `metrics`, outcomes are counted in
    /// `tessera_mfa_outcomes_total{factor, step, outcome}`.
    public init(services: CoreServices, directory: FactorDirectory, logger: Logger, metrics: MetricsRegistry? = nil) {
        self.directory = directory
        database = services.database
        accounts = services.accounts
        tokens = services.tokens
        configs = services.configs
        clock = services.clock
        keyRing = services.keyRing
        self.logger = logger
        outcomes = metrics?.counter(
            "tessera_mfa_outcomes_total", help: "Multi-factor steps, by factor, step and outcome (OK or the reason).",
            labels: ["factor", "step", "outcome"])
    }

    /// The factors offered now (the built-in ones and the registered factor services): the registry that the
    /// multi-factor RPC methods and the login pages read requests with.
    public func factors() async throws -> FactorRegistry {
        try await database.withPool { pool in try await self.directory.registry(pool) }
    }

    /// Whether `config` asks a user without a usable enrolment to enrol one (API §4 rule 5): `MANDATORY`, with at
    /// least one factor of `registry` enabled to enrol.
    static func enrollmentRequired(_ config: EffectiveConfig, _ registry: FactorRegistry) -> Bool {
        config.mfa.state == .mandatory && registry.anyEnabled(by: config.mfa)
    }

    /// The factor offered now as `id`: `OPERATION_NOT_ALLOWED` when it is not (a factor service removed since the
    /// request was read).
    func factor(_ id: FactorID, _ pool: PostgresPool) async throws -> any Factor {
        guard let factor = try await directory.registry(pool).factor(id) else {
            throw AuthError(.operationNotAllowed, "The \(id) factor is not offered.")
        }
        return factor
    }

    /// A factor's context for one call.
    func context(
        _ db: any SQLRunner, _ config: EffectiveConfig, now: Date, languageCode: String? = nil,
        clientAddress: String? = nil, appVerifiedByServer: Bool = false, enrollments: [Enrollment] = [],
        user: UserRecord
    ) -> FactorContext {
        FactorContext(
            database: db, config: config, now: now, keyRing: keyRing, languageCode: languageCode,
            clientAddress: clientAddress, appVerifiedByServer: appVerifiedByServer, enrollments: enrollments,
            user: user)
    }

    /// The enrolments among `stored` that belong to `factor`.
    static func ofFactor(_ factor: any Factor, _ stored: [LockableEnrollment]) -> [Enrollment] {
        stored.lazy.map(\.enrollment).filter { $0.factor == factor.descriptor.id }
    }

    /// Runs a factor's `check`; when the factor could not answer (`FACTOR_SERVICE_UNAVAILABLE`), runs `giveBack`
    /// to return the attempts taken for it before rethrowing, so an outage never counts against the user.
    func givingBackWhenUnavailable<T>(
        _ giveBack: () async throws -> Void, check: () async throws -> T
    ) async throws -> T {
        do {
            return try await check()
        } catch let error as AuthError where error.reason == .factorServiceUnavailable {
            try await giveBack()
            throw error
        }
    }

    /// `enrollment` as clients see it, through its factor.
    func view(_ enrollment: Enrollment, of factor: (any Factor)?, masked: Bool) -> MFAEnrollment {
        MFAEnrollment(
            mfaEnrollmentId: enrollment.id, displayName: enrollment.displayName,
            enrolledAt: RFC3339.string(from: enrollment.enrolledAt),
            factorInfo: factor?.publicInfo(of: enrollment, masked: masked) ?? enrollment.publicInfo,
            factorID: enrollment.factor.rawValue)
    }

    /// Runs one step of `factor` in `tenantID`, counting and logging its outcome (never a user's code or secret).
    func recorded<T>(
        _ factor: FactorID, _ step: String, tenantID: String?, _ body: () async throws -> T
    ) async throws -> T {
        do {
            let value = try await body()
            outcome(factor, step, "OK", tenantID: tenantID)
            return value
        } catch let error as AuthError {
            outcome(factor, step, error.reason.rawValue, tenantID: tenantID)
            throw error
        }
    }

    private func outcome(_ factor: FactorID, _ step: String, _ outcome: String, tenantID: String?) {
        outcomes?.increment([factor.rawValue, step, outcome])
        logger.info(
            "mfa \(step)",
            metadata: [
                "factor": .string(factor.rawValue), "outcome": .string(outcome), "tenant": .string(tenantID ?? "-"),
            ])
    }
}
