import FactorServices
import MultiFactor
import PhoneCodes
public import TesseraCore
import TesseraOAuth
public import TesseraPostgres

/// Every migration the server applies: core first, then the multi-factor router's, then each factor plugin's, then
/// module `phone` (``PhoneMigrations``: phone sign-in's sessions and the SMS send limits, which the SMS factor and
/// phone sign-in share), then the factor services' registrations, then the OAuth module's, in order. `tessera
/// migrate` and `serve` (unless `--no-migrate`) apply them. Existing databases recorded them by module and version
/// in this order; `SchemaMigrationsTests` keeps it.
public enum SchemaMigrations {
    /// All migrations, in the order they must run.
    public static let all: [Migration] =
        CoreMigrations.all + MultiFactorMigrations.all + StandardFactors.migrations + PhoneMigrations.all
        + FactorServicesMigrations.all + OAuthMigrations.all
}

/// Every module's retention rules, which the ``Janitor`` applies: what goes when, per table (docs/operations.md).
public enum SchemaRetention {
    /// All rules; the janitor runs them in this order.
    public static let all: [RetentionRule] =
        CoreRetention.rules + MultiFactorMigrations.retention + PhoneMigrations.retention + OAuthMigrations.retention
}
