public import TesseraCore
public import TesseraPostgres

/// The router's tables (module `multifactor`), applied after `core`'s:
/// - `mfa_pending_credentials`: the handle a first factor returns when a second one is due (stored as its
///   SHA-256), bound to the user and tenant, with its lifetime and attempt count;
/// - `mfa_sessions`: the sessions of factors' start steps (`sessionInfo`, hashed), with the factor's state sealed
///   under the master key, and their attempt counts;
/// - on `mfa_enrollments`, the consecutive failures and the lock of each enrolment (API §4 rule 7);
/// - (version 2) on `mfa_enrollments`, what factors keep no longer in tables of their own: the masked public info,
///   the factor's state sealed under the master key (bound to the enrolment id), the replay mark of the last code
///   accepted, and a key unique per user and factor (`SECOND_FACTOR_EXISTS`);
/// - (version 5) `mfa_refuse`, by which a statement in a pipeline refuses.
public enum MultiFactorMigrations {
    /// The migrations of module `multifactor`, in order.
    public static let all: [Migration] = [
        Migration(module: "multifactor", version: 1, name: "router", sql: router),
        Migration(module: "multifactor", version: 2, name: "factor_state", sql: factorState),
        Migration(module: "multifactor", version: 3, name: "revocation_ends_pending", sql: revocationEndsPending),
        Migration(module: "multifactor", version: 4, name: "retention_indexes", sql: retentionIndexes),
        Migration(module: "multifactor", version: 5, name: "refusals", sql: refusals),
    ]

    /// The SQLSTATE of `mfa_refuse` (class `TM`, which PostgreSQL leaves free).
    static let refusalState = "TM001"

    /// `mfa_refuse(reason)` fails the statement that calls it with SQLSTATE ``refusalState`` and `reason` as its
    /// message, so that a statement sent in a pipeline can refuse, and the pipeline's transaction then rolls back
    /// (`EnrollmentStore.recordSignIn`).
    private static let refusals = """
        CREATE FUNCTION mfa_refuse(reason text) RETURNS boolean LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION USING ERRCODE = '\(refusalState)', MESSAGE = reason;
        END
        $$;
        """

    /// When the router's short-lived rows go: a pending credential or a factor session past its expiry can no
    /// longer be used (docs/operations.md).
    public static let retention: [RetentionRule] = [
        .expiring("mfa_pending_credentials", time: "expires_at"),
        .expiring("mfa_sessions", time: "expires_at"),
    ]

    /// The indexes the janitor deletes by.
    private static let retentionIndexes = """
        CREATE INDEX mfa_pending_credentials_by_expiry ON mfa_pending_credentials (expires_at);
        CREATE INDEX mfa_sessions_by_expiry ON mfa_sessions (expires_at);
        """

    /// Revoking a user's tokens (`users.revokeTokens`, a new password, disabling the user, withdrawing a factor:
    /// each moves `users.tokens_valid_after`) and disabling the user end the user's pending second-factor
    /// sign-ins in the same transaction, so a credential issued before cannot finish a sign-in afterwards.
    private static let revocationEndsPending = """
        CREATE FUNCTION mfa_revocation_ends_pending() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM mfa_pending_credentials WHERE user_id = NEW.user_id;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER mfa_revocation_ends_pending AFTER UPDATE OF tokens_valid_after, disabled ON users
            FOR EACH ROW
            WHEN (OLD.tokens_valid_after IS DISTINCT FROM NEW.tokens_valid_after OR (NEW.disabled AND NOT OLD.disabled))
            EXECUTE FUNCTION mfa_revocation_ends_pending();
        """

    private static let factorState = """
        ALTER TABLE mfa_enrollments
            ADD COLUMN masked_info jsonb,
            ADD COLUMN sealed_state bytea,
            ADD COLUMN replay_mark bigint,
            ADD COLUMN unique_key text;
        CREATE UNIQUE INDEX mfa_enrollments_unique_key ON mfa_enrollments (user_id, factor, unique_key)
            WHERE unique_key IS NOT NULL;
        CREATE INDEX mfa_enrollments_by_unique_key ON mfa_enrollments (factor, unique_key)
            WHERE unique_key IS NOT NULL;
        """

    private static let router = """
        CREATE TABLE mfa_pending_credentials (
            handle_hash bytea PRIMARY KEY,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            tenant_id text,
            auth_time timestamptz NOT NULL,
            sign_in_provider text NOT NULL,
            expires_at timestamptz NOT NULL,
            attempts integer NOT NULL DEFAULT 0
        );
        CREATE INDEX mfa_pending_credentials_by_user ON mfa_pending_credentials (user_id);

        CREATE TABLE mfa_sessions (
            handle_hash bytea PRIMARY KEY,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            purpose text NOT NULL CHECK (purpose IN ('enroll', 'sign_in')),
            factor text NOT NULL,
            enrollment_id text REFERENCES mfa_enrollments ON DELETE CASCADE,
            credential_hash bytea REFERENCES mfa_pending_credentials ON DELETE CASCADE,
            sealed_state bytea NOT NULL,
            expires_at timestamptz NOT NULL,
            attempts integer NOT NULL DEFAULT 0
        );
        CREATE INDEX mfa_sessions_by_user ON mfa_sessions (user_id);
        CREATE INDEX mfa_sessions_by_credential ON mfa_sessions (credential_hash);

        ALTER TABLE mfa_enrollments
            ADD COLUMN failures integer NOT NULL DEFAULT 0,
            ADD COLUMN locked_until timestamptz;
        """
}
