public import FoundationEssentials
public import TesseraCore
import TesseraPostgres

/// Writing and listing `oauth_clients` rows, for the admin methods.
extension OAuthClients {
    /// Inserts `client` (its secret as the digest it carries).
    public static func insert(_ db: some SQLRunner, _ client: OAuthClient) async throws {
        try await db.query(
            """
            INSERT INTO oauth_clients (client_id, tenant_id, client_name, client_type, redirect_uris, grant_types,
                scopes, default_scopes, access_token_ttl, refresh_token_ttl, secret_hash, created_at, updated_at,
                post_logout_redirect_uris)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
            """,
            [
                client.clientID, client.tenantID, client.clientName, client.type.rawValue,
                joined(client.redirectURIs), joined(client.grantTypes.map(\.rawValue)), joined(client.scopes),
                client.defaultScopes.map(joined), client.accessTokenTTL, client.refreshTokenTTL, client.secretDigest,
                client.createdAt, client.updatedAt, joined(client.postLogoutRedirectURIs),
            ])
        try await announce(db, clientID: client.clientID)
    }

    /// Writes every settable field and `updated_at` of `client`; the id, tenant, type, secret and creation time
    /// stay as stored.
    public static func update(_ db: some SQLRunner, _ client: OAuthClient) async throws {
        try await db.query(
            """
            UPDATE oauth_clients SET client_name = $2, redirect_uris = $3, grant_types = $4, scopes = $5,
                default_scopes = $6, access_token_ttl = $7, refresh_token_ttl = $8, updated_at = $9,
                post_logout_redirect_uris = $10
            WHERE client_id = $1
            """,
            [
                client.clientID, client.clientName, joined(client.redirectURIs),
                joined(client.grantTypes.map(\.rawValue)), joined(client.scopes), client.defaultScopes.map(joined),
                client.accessTokenTTL, client.refreshTokenTTL, client.updatedAt, joined(client.postLogoutRedirectURIs),
            ])
        try await announce(db, clientID: client.clientID)
    }

    /// Replaces the secret digest of confidential client `clientID`; the old secret stops working with the commit.
    public static func replaceSecret(
        _ db: some SQLRunner, clientID: String, digest: [UInt8], now: Date
    ) async throws {
        try await db.query(
            "UPDATE oauth_clients SET secret_hash = $2, updated_at = $3 WHERE client_id = $1",
            [clientID, digest, now])
        try await announce(db, clientID: clientID)
    }

    /// Deletes client `clientID`; its codes and token families (with their refresh tokens) go with it.
    public static func delete(_ db: some SQLRunner, clientID: String) async throws {
        try await db.query("DELETE FROM oauth_clients WHERE client_id = $1", [clientID])
        try await announce(db, clientID: clientID)
    }

    /// Tells every server, when `db`'s transaction commits, to drop what it cached of client `clientID`.
    static func announce(_ db: some SQLRunner, clientID: String) async throws {
        try await ChangeFeed.announce(changes, key: clientID, in: db)
    }

    /// The client `clientID` when the scope of `principal` reaches it, locked for update when asked; nil when there
    /// is none or it belongs to a tenant (or the project level) the key may not reach, so a tenant key learns
    /// nothing about other tenants' clients.
    public static func find(
        _ db: some SQLRunner, clientID: String, reachableBy principal: AdminPrincipal, forUpdate: Bool = false
    ) async throws -> OAuthClient? {
        let lock = forUpdate ? " FOR UPDATE" : ""
        let result: PostgresResult
        switch principal.scope {
        case .project:
            result = try await db.query("SELECT \(columns) FROM oauth_clients WHERE client_id = $1\(lock)", [clientID])
        case .tenant(let tenantID):
            result = try await db.query(
                "SELECT \(columns) FROM oauth_clients WHERE client_id = $1 AND tenant_id = $2\(lock)",
                [clientID, tenantID])
        }
        return try result.rows.first.map(client(row:))
    }

    /// The clients of `tenantID` (nil: the project level) created after `cursor`, oldest first, at most `limit`.
    public static func list(
        _ db: some SQLRunner, tenantID: String?, after cursor: PageCursor?, limit: Int
    ) async throws -> [OAuthClient] {
        let result = try await db.query(
            """
            SELECT \(columns) FROM oauth_clients WHERE coalesce(tenant_id, '') = $1
                AND ($2::timestamptz IS NULL OR (created_at, client_id) > ($2, $3))
            ORDER BY created_at, client_id LIMIT $4
            """, [tenantID ?? "", cursor?.time, cursor?.id ?? "", limit])
        return try result.rows.map(client(row:))
    }
}
