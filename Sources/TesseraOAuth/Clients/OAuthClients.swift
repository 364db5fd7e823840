import FoundationEssentials
public import TesseraCore
import TesseraCrypto
public import TesseraPostgres

/// The `oauth_clients` table: reading clients and checking their secrets. Lists are stored as space-separated
/// text (redirect URIs and scope tokens never contain spaces).
public enum OAuthClients {
    /// The topic of change notices about clients, keyed by client id.
    public static let changes = ChangeTopic("oauth_clients")

    /// A cache of clients by id (nil: no such client) that `feed`'s notices keep fresh: those of ``changes``, and
    /// every configuration change (a deleted tenant takes its clients along); a client is read again in the
    /// background from `database`. A server makes one and hands it to its login pages and its OAuth endpoints
    /// (``OAuthLogin``, ``OAuthEnvironment``), so that each client is cached, and read again, once.
    public static func cache(_ feed: ChangeFeed, database: PostgresClient) -> FleetCache<OAuthClient?> {
        feed.cache(changes, droppedWholeBy: [ConfigStore.changes]) { clientID in
            try await database.withPool { pool in try await find(pool, clientID: clientID) }
        }
    }

    /// The columns ``client(row:)`` reads, in order.
    public static let columns = """
        client_id, tenant_id, client_name, client_type, redirect_uris, grant_types, scopes, default_scopes, \
        access_token_ttl, refresh_token_ttl, secret_hash, created_at, updated_at, post_logout_redirect_uris
        """

    /// The client `clientID`, whatever its tenant; nil when there is none.
    public static func find(_ db: any SQLRunner, clientID: String) async throws -> OAuthClient? {
        let result = try await db.query(findStatement, [clientID])
        return try result.rows.first.map(client(row:))
    }

    /// The statement of ``find(_:clientID:)`` for a pipeline: the client's ``columns``; no row when there is none.
    static func find(clientID: String) -> PostgresQuery {
        PostgresQuery(findStatement, [clientID])
    }

    private static let findStatement = "SELECT \(columns) FROM oauth_clients WHERE client_id = $1"

    /// The statement selecting the client `clientID` (``columns``, then the ``columnCount`` offset holds the stored
    /// configuration texts of its tenant, see ``ConfigStore/storedTexts(tenantID:)``); no row when there is none.
    static func findWithConfigTexts(clientID: String) -> PostgresQuery {
        PostgresQuery(
            """
            SELECT \(columns), \(ConfigStore.storedTexts(tenantID: "c.tenant_id"))
            FROM oauth_clients c WHERE client_id = $1
            """, [clientID])
    }

    /// How many columns ``columns`` names.
    static let columnCount = columns.split(separator: ",").count

    /// Whether `secret` is the client's secret, compared in constant time. Public clients have none, so this is
    /// false for them.
    public static func checkSecret(_ secret: String, of client: OAuthClient) -> Bool {
        guard let stored = client.secretDigest, let digest = try? SecretDigest.of(secret) else { return false }
        return ConstantTime.equals(digest, stored)
    }

    /// Decodes a row selected with ``columns``.
    public static func client(row: PostgresRow) throws -> OAuthClient {
        let type = try row.decode(String.self, at: 3)
        let grants = try row.decode(String.self, at: 5)
        return OAuthClient(
            clientID: try row.decode(String.self, at: 0), tenantID: try row.decode(String?.self, at: 1),
            clientName: try row.decode(String.self, at: 2),
            type: OAuthClientType(rawValue: type) ?? .confidential,
            redirectURIs: Scope.words(try row.decode(String.self, at: 4)),
            grantTypes: Scope.words(grants).compactMap(OAuthGrantType.init(rawValue:)),
            scopes: Scope.words(try row.decode(String.self, at: 6)),
            defaultScopes: try row.decode(String?.self, at: 7).map(Scope.words),
            accessTokenTTL: try row.decode(Int.self, at: 8), refreshTokenTTL: try row.decode(Int.self, at: 9),
            secretDigest: try row.decode([UInt8]?.self, at: 10),
            postLogoutRedirectURIs: Scope.words(try row.decode(String.self, at: 13)),
            createdAt: try row.decode(Date.self, at: 11), updatedAt: try row.decode(Date.self, at: 12))
    }

    /// `list` as stored: its members joined by single spaces.
    public static func joined(_ list: [String]) -> String {
        list.joined(separator: " ")
    }
}
