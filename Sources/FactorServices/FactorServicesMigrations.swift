public import TesseraPostgres

/// The table of registered factor services (module `factorservices`), applied after the factor plugins':
/// `factor_services`, one row per service: its id (the factor id of its descriptor), endpoint URLs (a JSON
/// array), timeout, whether plain http is allowed beyond loopback, the descriptor its `factor.describe` returned,
/// and its secret sealed under the master key (bound to the id).
public enum FactorServicesMigrations {
    /// The migrations of module `factorservices`, in order.
    public static let all: [Migration] = [
        Migration(
            module: "factorservices", version: 1, name: "registrations",
            sql: """
                CREATE TABLE factor_services (
                    factor_id text PRIMARY KEY,
                    endpoints jsonb NOT NULL,
                    timeout_ms integer NOT NULL CHECK (timeout_ms BETWEEN 100 AND 10000),
                    allow_insecure_http boolean NOT NULL DEFAULT false,
                    descriptor jsonb NOT NULL,
                    sealed_secret bytea NOT NULL,
                    created_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL
                );
                """)
    ]
}
