public import TesseraPostgres

/// The tables of module `oauth`, applied after the factor plugins':
/// - `oauth_clients`: registered clients (API §5), bound to a tenant or the project, the secret as its SHA-256;
/// - `oauth_codes`: authorization codes (API §6), stored as their SHA-256 with everything the token endpoint
///   needs to issue tokens; `used_at` and `family_id` are set when a code is redeemed, so a replay can find and
///   revoke what the code issued.
///
/// Token families (core) gain their foreign key to `oauth_clients`, so deleting a client (or its tenant) deletes
/// its tokens.
public enum OAuthMigrations {
    /// The migrations of module `oauth`, in order.
    public static let all: [Migration] = [
        Migration(module: "oauth", version: 1, name: "clients_and_codes", sql: clientsAndCodes)
    ]

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
