public import TesseraPostgres

/// The tables of the core module (DESIGN §4): configuration, tenants, users, tokens, admin keys, signing keys and
/// the audit log. Every table a tenant owns references `tenants` with `ON DELETE CASCADE`, so deleting a tenant
/// deletes its users and everything they own in one statement. Project-level rows have a NULL `tenant_id`;
/// uniqueness per tenant uses `coalesce(tenant_id, '')`.
public enum CoreMigrations {
    /// The migrations of module `core`, in order.
    public static let all: [Migration] = [
        Migration(module: "core", version: 1, name: "identity", sql: identity),
        Migration(module: "core", version: 2, name: "client_token_families", sql: clientTokenFamilies),
        Migration(module: "core", version: 3, name: "rate_limits", sql: rateLimits),
        Migration(module: "core", version: 4, name: "retention_indexes", sql: retentionIndexes),
        Migration(module: "core", version: 5, name: "grants_without_parent_locks", sql: grantsWithoutParentLocks),
        Migration(module: "core", version: 6, name: "refresh_tokens_in_families", sql: refreshTokensInFamilies),
    ]

    /// An OAuth grant's family keeps its current refresh token (its digest, issue time and expiry) in its own row:
    /// a rotation is one update of that row, which touches no indexed column, so it stays on its page (a HOT update,
    /// with the room a fill factor of 90 leaves) instead of an insert into `refresh_tokens` with its three indexes.
    /// Nothing is copied: tokens issued before stay rows of `refresh_tokens` until they are used or expire.
    private static let refreshTokensInFamilies = """
        ALTER TABLE token_families ADD COLUMN refresh_token_hash bytea, ADD COLUMN refresh_issued_at timestamptz,
            ADD COLUMN refresh_expires_at timestamptz;
        ALTER TABLE token_families SET (fillfactor = 90);
        """

    /// Every code grant inserts a token family and its refresh token; their foreign keys to `users` and
    /// `token_families` made each insert share-lock the parent row (a row lock is a WAL record and a dirtied page, and
    /// it waits behind an admin's update of the user). Triggers keep the cascades instead: deleting a user (also by
    /// deleting their tenant) deletes their families, and deleting a family deletes its refresh tokens. A grant that
    /// races the deletion of its user can leave a family behind; every statement that uses a family or a refresh
    /// token joins the user's row (and the family's), so such a row is never accepted, and the janitor deletes it
    /// once it expires (``CoreRetention``).
    private static let grantsWithoutParentLocks = """
        ALTER TABLE token_families DROP CONSTRAINT token_families_user_id_fkey;
        ALTER TABLE refresh_tokens DROP CONSTRAINT refresh_tokens_family_id_fkey;
        CREATE FUNCTION core_users_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM token_families f USING deleted_users d WHERE f.user_id = d.user_id;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER core_users_deleted AFTER DELETE ON users REFERENCING OLD TABLE AS deleted_users
            FOR EACH STATEMENT EXECUTE FUNCTION core_users_deleted();
        CREATE FUNCTION core_token_families_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM refresh_tokens r USING deleted_families d WHERE r.family_id = d.family_id;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER core_token_families_deleted AFTER DELETE ON token_families
            REFERENCING OLD TABLE AS deleted_families
            FOR EACH STATEMENT EXECUTE FUNCTION core_token_families_deleted();
        """

    /// The indexes the janitor deletes by (``CoreRetention``), so that a pass reads only what it deletes.
    private static let retentionIndexes = """
        CREATE INDEX oob_codes_by_expiry ON oob_codes (expires_at);
        CREATE INDEX login_failures_by_window ON login_failures (window_start);
        CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);
        CREATE INDEX token_families_by_creation ON token_families (created_at);
        """

    /// Events counted per key and window (``RateLimit``): mails sent, test-number codes tried.
    private static let rateLimits = """
        CREATE TABLE rate_limits (
            limit_key text PRIMARY KEY,
            window_start timestamptz NOT NULL,
            sends integer NOT NULL
        );
        CREATE INDEX rate_limits_by_window ON rate_limits (window_start);
        """

    /// A token family either belongs to the JSON-RPC API (`client_id` NULL) or to the OAuth client named in
    /// `client_id`, with the scope it was granted; module `oauth` adds the foreign key to its clients.
    private static let clientTokenFamilies = """
        ALTER TABLE token_families ADD COLUMN client_id text, ADD COLUMN scope text;
        CREATE INDEX token_families_by_client ON token_families (client_id) WHERE client_id IS NOT NULL;
        """

    private static let identity = """
        CREATE TABLE project_config (
            singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
            config jsonb NOT NULL,
            updated_at timestamptz NOT NULL
        );

        CREATE TABLE tenants (
            tenant_id text PRIMARY KEY,
            config jsonb NOT NULL,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        );

        CREATE TABLE users (
            user_id text PRIMARY KEY,
            tenant_id text REFERENCES tenants ON DELETE CASCADE,
            email text,
            email_verified boolean NOT NULL DEFAULT false,
            phone_number text,
            display_name text,
            password_hash text,
            phone_sign_in boolean NOT NULL DEFAULT false,
            disabled boolean NOT NULL DEFAULT false,
            created_at timestamptz NOT NULL,
            last_login_at timestamptz,
            tokens_valid_after timestamptz NOT NULL
        );
        CREATE UNIQUE INDEX users_email_per_tenant ON users (coalesce(tenant_id, ''), email) WHERE email IS NOT NULL;
        CREATE UNIQUE INDEX users_phone_per_tenant ON users (coalesce(tenant_id, ''), phone_number)
            WHERE phone_number IS NOT NULL;
        CREATE INDEX users_by_tenant ON users (coalesce(tenant_id, ''), user_id);

        CREATE TABLE login_failures (
            tenant_id text REFERENCES tenants ON DELETE CASCADE,
            email text NOT NULL,
            window_start timestamptz NOT NULL,
            failures integer NOT NULL
        );
        CREATE UNIQUE INDEX login_failures_key ON login_failures (coalesce(tenant_id, ''), email);

        CREATE TABLE mfa_enrollments (
            enrollment_id text PRIMARY KEY,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            factor text NOT NULL,
            display_name text,
            enrolled_at timestamptz NOT NULL,
            public_info jsonb NOT NULL DEFAULT '{}'
        );
        CREATE INDEX mfa_enrollments_by_user ON mfa_enrollments (user_id);

        CREATE TABLE token_families (
            family_id text PRIMARY KEY,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            auth_time timestamptz NOT NULL,
            sign_in_provider text NOT NULL,
            second_factor text,
            second_factor_id text,
            mfa_enrollment_required boolean NOT NULL DEFAULT false,
            created_at timestamptz NOT NULL,
            revoked_at timestamptz
        );
        CREATE INDEX token_families_by_user ON token_families (user_id);

        CREATE TABLE refresh_tokens (
            token_hash bytea PRIMARY KEY,
            family_id text NOT NULL REFERENCES token_families ON DELETE CASCADE,
            issued_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            used_at timestamptz
        );
        CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);

        CREATE TABLE oob_codes (
            code_hash bytea PRIMARY KEY,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            kind text NOT NULL,
            email text NOT NULL,
            expires_at timestamptz NOT NULL
        );

        CREATE TABLE admin_keys (
            key_id text PRIMARY KEY,
            key_hash bytea NOT NULL UNIQUE,
            display_name text NOT NULL,
            scope text NOT NULL,
            tenant_id text REFERENCES tenants ON DELETE CASCADE,
            created_at timestamptz NOT NULL,
            revoked_at timestamptz
        );

        CREATE TABLE signing_keys (
            kid text PRIMARY KEY,
            sealed_private_key bytea NOT NULL,
            public_jwk jsonb NOT NULL,
            created_at timestamptz NOT NULL,
            retired_at timestamptz,
            publish_until timestamptz
        );

        CREATE TABLE audit_events (
            event_id text PRIMARY KEY,
            tenant_id text,
            actor_key_id text NOT NULL,
            method text NOT NULL,
            target text NOT NULL,
            occurred_at timestamptz NOT NULL,
            before jsonb,
            after jsonb,
            request_id text
        );
        CREATE INDEX audit_events_by_tenant ON audit_events (coalesce(tenant_id, ''), occurred_at DESC, event_id DESC);
        """
}
