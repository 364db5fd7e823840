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

    /// The factors offered.
    public let registry: FactorRegistry
    let database: PostgresClient
    let accounts: Accounts
    let tokens: Tokens
    let configs: ConfigStore
    let clock: any WallClock
    let keyRing: KeyRing
    let logger: Logger
    let outcomes: Counter?

    /// A router over the core services and the factors of `registry`. With `metrics`, outcomes are counted in
    /// `tessera_mfa_outcomes_total{factor, step, outcome}`.
    public init(services: CoreServices, registry: FactorRegistry, logger: Logger, metrics: MetricsRegistry? = nil) {
        self.registry = registry
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

    /// Whether `config` asks a user without a usable enrolment to enrol one (API §4 rule 5): `MANDATORY`, with at
    /// least one factor enabled to enrol.
    func enrollmentRequired(_ config: EffectiveConfig) -> Bool {
        config.mfa.state == .mandatory && registry.anyEnabled(by: config.mfa)
    }

    /// The factor registered as `id`; the request parsers only name registered factors.
    func factor(_ id: FactorID) throws(AuthError) -> any Factor {
        guard let factor = registry.factor(id) else { throw AuthError(.invalidArgument, "Unknown factor \(id).") }
        return factor
    }

    /// A factor's context for one call.
    func context(
        _ db: any SQLRunner, _ config: EffectiveConfig, now: Date, languageCode: String? = nil,
        clientAddress: String? = nil, appVerifiedByServer: Bool = false
    ) -> FactorContext {
        FactorContext(
            database: db, config: config, now: now, keyRing: keyRing, languageCode: languageCode,
            clientAddress: clientAddress, appVerifiedByServer: appVerifiedByServer)
    }

    /// `enrollment` as clients see it, through its factor.
    func view(_ enrollment: Enrollment, of factor: (any Factor)?, masked: Bool) -> MfaEnrollment {
        MfaEnrollment(
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
