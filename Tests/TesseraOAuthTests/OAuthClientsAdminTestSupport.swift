import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraOAuth
import TesseraPostgres
import TesseraServer
import TesseraTestSupport
import Testing

/// The clients admin over a ``CoreHarness`` with every migration applied, and the keys the tests act with.
struct ClientsHarness {
    let core: CoreHarness
    let admin: OAuthClientsAdmin

    static let projectKey = AdminPrincipal(keyID: "clients-test-project", scope: .project)

    /// Runs `body` over the test database.
    static func run(_ body: (ClientsHarness) async throws -> Void) async throws {
        try await CoreHarness.run(migrations: SchemaMigrations.all) { core in
            let admin = OAuthClientsAdmin(
                database: core.database, configs: core.services.configs, clock: core.clock,
                changes: core.services.changes)
            try await body(ClientsHarness(core: core, admin: admin))
        }
    }

    /// An actor calling `method` with `principal`.
    static func actor(_ method: String, _ principal: AdminPrincipal = projectKey) -> AuditLog.Actor {
        AuditLog.Actor(principal: principal, method: method, requestID: "req-\(method)")
    }

    /// A fresh tenant's id.
    func tenant() async throws -> String {
        let created = try await core.services.configAdmin.createTenant(
            ["displayName": "Clients"], actor: Self.actor("tenants.create"))
        return try #require(created["tenantId"]?.stringValue)
    }

    /// `oauthClients.create` with a project key.
    func create(_ body: JSONObject, tenantID: String? = nil) async throws -> OAuthClientResource {
        try await admin.create(tenantID: tenantID, body, actor: Self.actor("oauthClients.create"))
    }

    /// The stored row's secret digest.
    func storedDigest(_ clientID: String) async throws -> [UInt8]? {
        try await core.database.withPool { pool in
            let result = try await pool.query("SELECT secret_hash FROM oauth_clients WHERE client_id = $1", [clientID])
            return try result[0].decode([UInt8]?.self, at: 0)
        }
    }

    /// The stored client, whatever its tenant.
    func stored(_ clientID: String) async throws -> OAuthClient? {
        try await core.database.withPool { pool in try await OAuthClients.find(pool, clientID: clientID) }
    }

    /// A new user (project-level unless `tenantID` says) and a token family (with one refresh token) of theirs issued
    /// to `clientID`: the user's id and the family's.
    func familyOfNewUser(clientID: String, tenantID: String? = nil) async throws -> (userID: String, familyID: String) {
        let user = try await core.services.usersAdmin.create(
            tenantID: tenantID, UserChanges(email: CoreHarness.email("clients")), actor: Self.actor("users.create"))
        let familyID = try SecureRandom.identifier()
        let now = core.clock.now()
        try await core.sql(
            """
            INSERT INTO token_families (family_id, user_id, auth_time, sign_in_provider, created_at, client_id, scope)
            VALUES ($1, $2, $3, 'password', $3, $4, 'openid')
            """, [familyID, user.localId, now, clientID])
        try await core.sql(
            "INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at) VALUES ($1, $2, $3, $3)",
            [try SecureRandom.bytes(count: 32), familyID, now])
        return (user.localId, familyID)
    }

    /// How many rows `sql` (a `SELECT … WHERE … = $1`) counts for `value`.
    func count(_ sql: String, _ value: String) async throws -> Int {
        try await core.sql(sql, [value])
    }

    /// The audit events of `tenantID`, newest first.
    func auditEvents(_ tenantID: String) async throws -> [AuditLog.Event] {
        try await core.services.configAdmin.auditEvents(
            tenantID: tenantID, pageSize: 100, pageToken: nil, actor: Self.projectKey
        ).events
    }

    /// A valid public client body, changed by `changes`.
    static func publicClient(_ changes: JSONObject = [:]) -> JSONObject {
        var body: JSONObject = [
            "clientName": "Native app", "type": "public", "redirectUris": ["com.example.app:/oauth2redirect"],
        ]
        for (key, value) in changes { body[key] = value }
        return body
    }

    /// A valid confidential client body, changed by `changes`.
    static func confidentialClient(_ changes: JSONObject = [:]) -> JSONObject {
        var body: JSONObject = [
            "clientName": "Web backend", "type": "confidential", "redirectUris": ["https://app.example.com/cb"],
        ]
        for (key, value) in changes { body[key] = value }
        return body
    }
}
