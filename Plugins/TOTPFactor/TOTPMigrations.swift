public import TesseraPostgres

/// The TOTP factor's table (module `totp`): each enrolment's secret, sealed under the master key (AES-256-GCM,
/// bound to the enrolment id), and the last time step accepted for it, which only ever grows (RFC 6238 §5.2).
public enum TOTPMigrations {
    /// The migrations of module `totp`, in order (after `multifactor`'s).
    public static let all: [Migration] = [
        Migration(
            module: "totp", version: 1, name: "secrets",
            sql: """
                CREATE TABLE totp_enrollments (
                    enrollment_id text PRIMARY KEY REFERENCES mfa_enrollments ON DELETE CASCADE,
                    sealed_secret bytea NOT NULL,
                    last_step bigint NOT NULL
                );
                """)
    ]
}
