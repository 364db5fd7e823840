public import TesseraPostgres

/// The TOTP factor's migrations (module `totp`). Version 1 made a table of each enrolment's secret, sealed under the
/// master key (AES-256-GCM, bound to the enrolment id), and the last time step accepted for it; version 2 moves both
/// into the router's `mfa_enrollments` (`sealed_state`, sealed the same way, and `replay_mark`) and drops the table:
/// the factor keeps no state of its own.
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
                """),
        Migration(
            module: "totp", version: 2, name: "state_to_router",
            sql: """
                UPDATE mfa_enrollments e SET sealed_state = t.sealed_secret, replay_mark = t.last_step
                    FROM totp_enrollments t WHERE t.enrollment_id = e.enrollment_id;
                DROP TABLE totp_enrollments;
                """),
    ]
}
