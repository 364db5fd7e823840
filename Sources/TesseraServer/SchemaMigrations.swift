public import TesseraPostgres
import FactorServices
import MultiFactor
import TesseraOAuth
import TesseraCore

/// Every migration the server applies: core first, then the multi-factor router's, then each factor plugin's, then
/// the factor services' registrations, then the OAuth module's, in order. `tessera migrate` and `serve` (unless `--no-migrate`) apply them.
public enum SchemaMigrations {
    /// All migrations, in the order they must run.
    public static let all: [Migration] =
        CoreMigrations.all + MultiFactorMigrations.all + StandardFactors.migrations + FactorServicesMigrations.all
        + OAuthMigrations.all
}
