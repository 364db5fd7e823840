public import TesseraCore
public import TesseraPostgres

/// The tables of module `oauth`, applied after the factor plugins':
/// - `oauth_clients`: registered clients (API §5), bound to a tenant or the project, the secret as its SHA-256;
/// - `oauth_codes`: authorization codes (API §6), stored as their SHA-256 with everything the token endpoint
///   needs to issue tokens; `used_at` and `family_id` are set when a code is redeemed, so a replay can find and
///   revoke what the code issued.
///
/// Token families (core) gain their foreign key to `oauth_clients`, so deleting a client (or its tenant) deletes
/// its tokens.
///
/// Version 2 adds the state of the login pages (docs/login-pages.md):
/// - `oauth_login_flows`: one authorization request while the user signs in, keyed by the SHA-256 of its flow id
///   and bound to the browser by the SHA-256 of its browser cookie; credentials of an unfinished sign-in are
///   sealed under the master key;
/// - `oauth_browser_sessions`: signed-in browsers (SSO), keyed by the SHA-256 of the session cookie, each resting
///   on a token family, so revoking the user's tokens ends the session too.
///
/// Version 3 lets a code name the token family of its sign-in (`sign_in_family_id`), so revoking the sign-in
/// voids its unredeemed codes.
///
/// Version 4 makes codes sealed (``SealedAuthorizationCode``): issuing one writes nothing, so `oauth_codes` goes.
/// Redeeming one inserts its SHA-256 into `oauth_spent_codes` (the primary key makes it single use across the
/// fleet) with the token family it created, for replay detection; a row lives until the code's own expiry, and has
/// no foreign key (no row lock on a hot parent per insert). Codes issued before the upgrade stop working (they
/// live 60 s).
///
/// Version 9 keeps what ended browser sessions early (`oauth_sso_revocations`, ``SSORevocations``), so that an SSO
/// authorization trusts a sealed session cookie without reading the session.
///
/// Version 8 lets a client register where `/oauth2/logout` may send the browser (`post_logout_redirect_uris`,
/// space-separated as `redirect_uris`).
///
/// Version 7 keeps the access tokens revoked at `/oauth2/revoke` (a denylist by `jti`, until each token's expiry).
///
/// Version 6 ends a user's login flows when the user's tokens are revoked or the user is disabled.
///
/// Version 5 drops the foreign key from `token_families.client_id` to `oauth_clients`: every grant inserted a family
/// under it, and each insert share-locked the client's row, one hot row for all of a client's users (concurrent
/// grants then share that lock through a multixact). A trigger keeps the cascade: deleting a client (also through
/// its tenant's deletion) deletes its families, and with them their refresh tokens and browser sessions. The grants'
/// statements check that the client exists when they insert a family; a family inserted while its client was being
/// deleted is left without a client and can never be refreshed (the refresh statement finds no client).
public enum OAuthMigrations {
    /// The migrations of module `oauth`, in order.
    public static let all: [Migration] = [
        Migration(module: "oauth", version: 1, name: "clients_and_codes", sql: clientsAndCodes),
        Migration(module: "oauth", version: 2, name: "login_flows_and_browser_sessions", sql: loginFlows),
        Migration(module: "oauth", version: 3, name: "codes_name_their_sign_in", sql: codesNameTheirSignIn),
        Migration(module: "oauth", version: 4, name: "sealed_codes", sql: sealedCodes),
        Migration(module: "oauth", version: 5, name: "families_without_client_lock", sql: familiesWithoutClientLock),
        Migration(module: "oauth", version: 6, name: "revocation_ends_login_flows", sql: revocationEndsLoginFlows),
        Migration(module: "oauth", version: 7, name: "revoked_access_tokens", sql: revokedAccessTokens),
        Migration(
            module: "oauth", version: 8, name: "post_logout_redirect_uris",
            sql: "ALTER TABLE oauth_clients ADD COLUMN post_logout_redirect_uris text NOT NULL DEFAULT '';"),
        Migration(module: "oauth", version: 9, name: "sso_revocations", sql: ssoRevocations),
    ]

    /// What ended browser sessions before their expiry (``SSORevocations``), written by triggers only, each change
    /// announced on the change feed in its transaction:
    /// - `session:<hex of the session hash>`: the session was deleted before its expiry (sign-out, the step-up, its
    ///   user, client's sign-in or tenant deleted), or its sign-in was revoked; kept until the session's expiry;
    /// - `user:<user id>`: the user was disabled (`revoked`), or enabled again; kept for a session's lifetime and an
    ///   hour, as every session the change concerns began before it.
    private static let ssoRevocations = """
        CREATE TABLE oauth_sso_revocations (
            subject text PRIMARY KEY,
            revoked boolean NOT NULL,
            changed_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL
        );
        CREATE INDEX oauth_sso_revocations_by_change ON oauth_sso_revocations (changed_at);
        CREATE INDEX oauth_sso_revocations_by_expiry ON oauth_sso_revocations (expires_at);

        CREATE FUNCTION oauth_sso_revoke(_subject text, _revoked boolean, _expires_at timestamptz) RETURNS void
        LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO oauth_sso_revocations AS r (subject, revoked, changed_at, expires_at)
            VALUES (_subject, _revoked, clock_timestamp(), _expires_at)
            ON CONFLICT (subject) DO UPDATE SET revoked = EXCLUDED.revoked, changed_at = EXCLUDED.changed_at,
                expires_at = greatest(r.expires_at, EXCLUDED.expires_at);
            PERFORM pg_notify('\(ChangeFeed.channel)',
                'sso_revocations:' || CASE WHEN _revoked THEN '+' ELSE '-' END || _subject);
        END
        $$;

        CREATE FUNCTION oauth_browser_session_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.expires_at > now() THEN
                PERFORM oauth_sso_revoke('session:' || encode(OLD.session_hash, 'hex'), true, OLD.expires_at);
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER oauth_browser_session_deleted AFTER DELETE ON oauth_browser_sessions
            FOR EACH ROW EXECUTE FUNCTION oauth_browser_session_deleted();

        CREATE FUNCTION oauth_sign_in_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM oauth_sso_revoke('session:' || encode(s.session_hash, 'hex'), true, s.expires_at)
            FROM oauth_browser_sessions s WHERE s.family_id = NEW.family_id AND s.expires_at > now();
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER oauth_sign_in_revoked AFTER UPDATE OF revoked_at ON token_families
            FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.client_id IS NULL)
            EXECUTE FUNCTION oauth_sign_in_revoked();

        CREATE FUNCTION oauth_user_disabled_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.disabled OR EXISTS (SELECT 1 FROM oauth_sso_revocations WHERE subject = 'user:' || NEW.user_id) THEN
                PERFORM oauth_sso_revoke('user:' || NEW.user_id, NEW.disabled, clock_timestamp() + interval '13 hours');
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER oauth_user_disabled_changed AFTER UPDATE OF disabled ON users
            FOR EACH ROW WHEN (OLD.disabled IS DISTINCT FROM NEW.disabled)
            EXECUTE FUNCTION oauth_user_disabled_changed();
        """

    /// Access tokens revoked at `/oauth2/revoke` (RFC 7009), by `jti`, until the token's own expiry: introspection
    /// answers `active: false` for them on every server, whatever grant issued them.
    private static let revokedAccessTokens = """
        CREATE TABLE oauth_revoked_access_tokens (
            jti text PRIMARY KEY,
            expires_at timestamptz NOT NULL
        );
        CREATE INDEX oauth_revoked_access_tokens_by_expiry ON oauth_revoked_access_tokens (expires_at);
        """

    /// When the module's short-lived rows go (docs/operations.md): a spent code is kept until the code's own
    /// expiry (a replay until then must find it and revoke what it issued), a login flow and a browser session
    /// until theirs.
    public static let retention: [RetentionRule] = [
        .expiring("oauth_spent_codes", time: "expires_at"),
        .expiring("oauth_login_flows", time: "expires_at"),
        .expiring("oauth_browser_sessions", time: "expires_at"),
        // A revoked access token past its own expiry is refused anyway.
        .expiring("oauth_revoked_access_tokens", time: "expires_at"),
        // Every session a revocation concerns has expired by then.
        .expiring("oauth_sso_revocations", time: "expires_at"),
    ]

    /// Revoking a user's tokens (anything that moves `users.tokens_valid_after`) or disabling the user ends, in
    /// the same transaction, the login flows in which the user has passed a factor (they hold the user and a
    /// sealed credential), so a sign-in begun before cannot complete afterwards.
    private static let revocationEndsLoginFlows = """
        CREATE FUNCTION oauth_revocation_ends_login_flows() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM oauth_login_flows WHERE user_id = NEW.user_id;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER oauth_revocation_ends_login_flows AFTER UPDATE OF tokens_valid_after, disabled ON users
            FOR EACH ROW
            WHEN (OLD.tokens_valid_after IS DISTINCT FROM NEW.tokens_valid_after OR (NEW.disabled AND NOT OLD.disabled))
            EXECUTE FUNCTION oauth_revocation_ends_login_flows();
        """

    /// The client's families go by a trigger instead of a foreign key.
    private static let familiesWithoutClientLock = """
        ALTER TABLE token_families DROP CONSTRAINT token_families_client_id_fkey;
        CREATE FUNCTION oauth_client_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM token_families WHERE client_id = OLD.client_id;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER oauth_client_deleted AFTER DELETE ON oauth_clients
            FOR EACH ROW EXECUTE FUNCTION oauth_client_deleted();
        """

    /// Spent sealed codes, by digest, until their expiry; the stored codes of earlier versions go.
    private static let sealedCodes = """
        CREATE TABLE oauth_spent_codes (
            code_hash bytea PRIMARY KEY,
            family_id text,
            expires_at timestamptz NOT NULL
        );
        CREATE INDEX oauth_spent_codes_by_expiry ON oauth_spent_codes (expires_at);
        DROP TABLE oauth_codes;
        """

    /// A code remembers the token family of the sign-in it was issued from, so revoking that sign-in voids the
    /// codes it has not redeemed yet.
    private static let codesNameTheirSignIn = """
        ALTER TABLE oauth_codes ADD COLUMN sign_in_family_id text REFERENCES token_families ON DELETE CASCADE;
        """

    private static let loginFlows = """
        CREATE TABLE oauth_login_flows (
            flow_hash bytea PRIMARY KEY,
            browser_hash bytea NOT NULL,
            client_id text NOT NULL REFERENCES oauth_clients ON DELETE CASCADE,
            tenant_id text,
            redirect_uri text NOT NULL,
            state text,
            code_challenge text NOT NULL,
            scope text NOT NULL,
            nonce text,
            login_hint text,
            step text NOT NULL,
            user_id text REFERENCES users ON DELETE CASCADE,
            sealed_credential bytea,
            factors text,
            enrollment_id text,
            factor text,
            sealed_challenge bytea,
            sms_sent_at timestamptz,
            browser_session_hash bytea,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            completed_at timestamptz
        );
        CREATE INDEX oauth_login_flows_by_expiry ON oauth_login_flows (expires_at);

        CREATE TABLE oauth_browser_sessions (
            session_hash bytea PRIMARY KEY,
            family_id text NOT NULL REFERENCES token_families ON DELETE CASCADE,
            created_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL
        );
        CREATE INDEX oauth_browser_sessions_by_family ON oauth_browser_sessions (family_id);
        CREATE INDEX oauth_browser_sessions_by_expiry ON oauth_browser_sessions (expires_at);
        """

    private static let clientsAndCodes = """
        CREATE TABLE oauth_clients (
            client_id text PRIMARY KEY,
            tenant_id text REFERENCES tenants ON DELETE CASCADE,
            client_name text NOT NULL,
            client_type text NOT NULL CHECK (client_type IN ('public', 'confidential')),
            redirect_uris text NOT NULL,
            grant_types text NOT NULL,
            scopes text NOT NULL,
            default_scopes text,
            access_token_ttl integer NOT NULL,
            refresh_token_ttl integer NOT NULL,
            secret_hash bytea,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            CHECK ((client_type = 'confidential') = (secret_hash IS NOT NULL))
        );
        CREATE INDEX oauth_clients_by_tenant ON oauth_clients (coalesce(tenant_id, ''), created_at, client_id);

        ALTER TABLE token_families ADD FOREIGN KEY (client_id) REFERENCES oauth_clients ON DELETE CASCADE;

        CREATE TABLE oauth_codes (
            code_hash bytea PRIMARY KEY,
            client_id text NOT NULL REFERENCES oauth_clients ON DELETE CASCADE,
            user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
            redirect_uri text NOT NULL,
            code_challenge text NOT NULL,
            scope text NOT NULL,
            nonce text,
            auth_time timestamptz NOT NULL,
            sign_in_provider text NOT NULL,
            second_factor text,
            second_factor_id text,
            expires_at timestamptz NOT NULL,
            used_at timestamptz,
            family_id text
        );
        CREATE INDEX oauth_codes_by_expiry ON oauth_codes (expires_at);
        """
}
