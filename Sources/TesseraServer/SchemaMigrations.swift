public import TesseraPostgres
import TesseraCore

/// Every migration the server applies, core first, then each factor plugin's, in order. Each module appends
/// its own list here as it lands; `tessera migrate` and `serve` (unless `--no-migrate`) apply them.
public enum SchemaMigrations {
    /// All migrations, in the order they must run.
    public static let all: [Migration] = CoreMigrations.all
}
