import FoundationEssentials
public import TesseraCore
import TesseraCrypto
public import TesseraJSON
public import TesseraPostgres

/// The `oauthClients.*` admin methods (API §5), like the `users.*` ones: the key's scope is checked before any
/// work (`PERMISSION_DENIED` for a tenant the key may not reach), a tenant key only ever finds its own tenant's
/// clients (another tenant's client is `CLIENT_NOT_FOUND`, as another tenant's user is `USER_NOT_FOUND`), and every
/// change is written with its audit event (target `oauthClients/<clientId>`, secrets redacted) in one transaction.
public final class OAuthClientsAdmin: Sendable {
    /// One page of `oauthClients.list`.
    public struct Page: Codable, Sendable, Equatable {
        public var clients: [OAuthClientResource]
        public var nextPageToken: String?
    }

    /// The answer of `oauthClients.rotateSecret`: the new secret, shown once.
    public struct RotatedSecret: Codable, Sendable, Equatable {
        public var clientId: String
        public var clientSecret: String
    }

    /// The prefix of client secrets, so a leaked one is recognizable (by secret scanners too).
    public static let secretPrefix = "tcs_"

    let database: PostgresClient
    let configs: ConfigStore
    let clock: any WallClock
    /// Told of every committed change, so that this server's caches see it at once.
    let changes: ChangeFeed

    /// The clients admin over `database`.
    public init(database: PostgresClient, configs: ConfigStore, clock: any WallClock, changes: ChangeFeed) {
        self.database = database
        self.configs = configs
        self.clock = clock
        self.changes = changes
    }

    /// `oauthClients.create`: a client of `tenantID` (or of the tenant `body.tenantId` names; both must agree) with a
    /// random id and, when confidential, a 256-bit secret that the answer carries once and the database only as its
    /// SHA-256. `clientId`, `createTime` and `updateTime` are assigned, so a body giving them is refused.
    public func create(
        tenantID requestedTenantID: String?, _ body: JSONObject, actor: AuditLog.Actor
    ) async throws -> OAuthClientResource {
        let tenantID = try Self.tenant(of: body, requested: requestedTenantID)
        try actor.principal.require(tenant: tenantID)
        for key in ["clientId", "createTime", "updateTime"] where body.contains(key: key) {
            throw AuthError(.invalidArgument, "client.\(key) is assigned by the server")
        }
        let settings = try OAuthClientSettings(json: body)
        let secret = settings.type == .confidential ? try SecretDigest.make(prefix: Self.secretPrefix) : nil
        let now = clock.now()
        let client = OAuthClient(
            clientID: try SecureRandom.identifier(), tenantID: tenantID, clientName: settings.clientName,
            type: settings.type, redirectURIs: [], secretDigest: secret?.digest, createdAt: now, updatedAt: now
        ).applying(settings, updatedAt: now)
        defer { changes.drop(OAuthClients.changes, key: client.clientID) }
        return try await database.withPool { pool in
            try await pool.transaction { transaction in
                try await self.configs.requireTenant(transaction, tenantID)
                try await OAuthClients.insert(transaction, client)
                var created = client.resource
                created.clientSecret = secret?.secret
                var audited = client.resourceJSON
                if let secret { audited["clientSecret"] = .string(secret.secret) }
                try await AuditLog.record(
                    transaction, actor: actor, target: Self.target(client), tenantID: tenantID, before: nil,
                    after: .object(audited), now: now)
                return created
            }
        }
    }

    /// `oauthClients.get`.
    public func get(clientID: String, actor: AdminPrincipal) async throws -> OAuthClientResource {
        try await database.withPool { pool in
            try await Self.find(pool, clientID, actor: actor).resource
        }
    }

    /// `oauthClients.list`: the clients of `tenantID` (nil: those of the project level), oldest first, `pageSize`
    /// (1–100, default 20) at a time.
    public func list(
        tenantID: String?, pageSize: Int?, pageToken: String?, actor: AdminPrincipal
    ) async throws -> Page {
        try actor.require(tenant: tenantID)
        let size = try PageCursor.pageSize(pageSize)
        let cursor = try pageToken.map(PageCursor.decode)
        if let cursor, cursor.time == nil {
            throw AuthError(.invalidArgument, "pageToken is not a token this server handed out.")
        }
        return try await database.withPool { pool in
            try await self.configs.requireTenant(pool, tenantID)
            let clients = try await OAuthClients.list(pool, tenantID: tenantID, after: cursor, limit: size + 1)
            let page = clients.prefix(size)
            let next =
                clients.count > size
                ? page.last.map { PageCursor(time: $0.createdAt, id: $0.clientID).encoded } : nil
            return Page(clients: page.map(\.resource), nextPageToken: next)
        }
    }

    /// `oauthClients.update`: the body and `updateMask` are applied as in `tenants.update` (API §5): without a
    /// mask every settable field is replaced (omitted ones take their defaults), with one only the named fields
    /// change and named fields absent from the body take their defaults. `type` never changes: it may be omitted
    /// or repeated, not altered. The result is validated whole, so an update applies entirely or not at all.
    public func update(
        clientID: String, _ body: JSONObject, updateMask: String?, actor: AuditLog.Actor
    ) async throws -> OAuthClientResource {
        let now = clock.now()
        defer { changes.drop(OAuthClients.changes, key: clientID) }
        return try await database.withPool { pool in
            try await pool.transaction { transaction in
                let stored = try await Self.find(transaction, clientID, actor: actor.principal, forUpdate: true)
                let before = stored.resourceJSON
                try OAuthClientSettings.checkUpdate(body, of: before)
                let merged = try ConfigUpdate.apply(
                    body: body, to: before, updateMask: updateMask, paths: OAuthClientSettings.updatePaths)
                let client = stored.applying(try OAuthClientSettings(json: merged), updatedAt: now)
                try await OAuthClients.update(transaction, client)
                try await AuditLog.record(
                    transaction, actor: actor, target: Self.target(client), tenantID: client.tenantID,
                    before: .object(before), after: .object(client.resourceJSON), now: now)
                return client.resource
            }
        }
    }

    /// `oauthClients.delete`: the client, its unused codes and every token family (grant) it holds.
    public func delete(clientID: String, actor: AuditLog.Actor) async throws {
        let now = clock.now()
        defer { changes.drop(OAuthClients.changes, key: clientID) }
        try await database.withPool { pool in
            try await pool.transaction { transaction in
                let client = try await Self.find(transaction, clientID, actor: actor.principal, forUpdate: true)
                try await OAuthClients.delete(transaction, clientID: client.clientID)
                try await AuditLog.record(
                    transaction, actor: actor, target: Self.target(client), tenantID: client.tenantID,
                    before: .object(client.resourceJSON), after: nil, now: now)
            }
        }
    }

    /// `oauthClients.rotateSecret` (an extension of API §5): a new secret for a confidential client, shown once;
    /// the old one stops working when this returns. A public client has no secret (`INVALID_ARGUMENT`).
    public func rotateSecret(clientID: String, actor: AuditLog.Actor) async throws -> RotatedSecret {
        let now = clock.now()
        defer { changes.drop(OAuthClients.changes, key: clientID) }
        return try await database.withPool { pool in
            try await pool.transaction { transaction in
                let client = try await Self.find(transaction, clientID, actor: actor.principal, forUpdate: true)
                guard client.type == .confidential else {
                    throw AuthError(.invalidArgument, "client \(clientID) is public: public clients have no secret")
                }
                let secret = try SecretDigest.make(prefix: Self.secretPrefix)
                try await OAuthClients.replaceSecret(transaction, clientID: clientID, digest: secret.digest, now: now)
                try await AuditLog.record(
                    transaction, actor: actor, target: Self.target(client), tenantID: client.tenantID, before: nil,
                    after: ["clientSecret": .string(secret.secret), "updateTime": .string(RFC3339.string(from: now))],
                    now: now)
                return RotatedSecret(clientId: clientID, clientSecret: secret.secret)
            }
        }
    }

    /// The tenant a new client belongs to: the params' `tenantId`, or the body's when the params name none; when
    /// both are given they must agree.
    private static func tenant(of body: JSONObject, requested: String?) throws(AuthError) -> String? {
        guard let value = body["tenantId"], !value.isNull else { return requested }
        guard let named = value.stringValue else {
            throw AuthError(.invalidArgument, "client.tenantId must be a string")
        }
        if let requested, requested != named {
            throw AuthError(.invalidArgument, "client.tenantId \(named) differs from tenantId \(requested)")
        }
        return named
    }

    /// The client `clientID` within the reach of `actor`, else `CLIENT_NOT_FOUND`.
    private static func find(
        _ db: some SQLRunner, _ clientID: String, actor: AdminPrincipal, forUpdate: Bool = false
    ) async throws -> OAuthClient {
        guard let client = try await OAuthClients.find(db, clientID: clientID, reachableBy: actor, forUpdate: forUpdate)
        else { throw AuthError(.clientNotFound, "There is no OAuth client \(clientID).") }
        return client
    }

    private static func target(_ client: OAuthClient) -> String {
        "oauthClients/\(client.clientID)"
    }
}
