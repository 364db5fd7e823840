import FoundationEssentials
import TesseraCrypto
import TesseraJSON
public import TesseraPostgres

/// Admin keys (API §5): bearer secrets stored as SHA-256 digests, each with a public `keyId` and a scope.
public final class AdminKeys: Sendable {
    /// The prefix of every generated key, so leaked keys are easy to recognise in code and logs scanners.
    static let prefix = "tsa_"

    /// One key as `adminKeys.list` shows it; the key itself is never shown again after creation.
    public struct Description: Codable, Sendable, Equatable {
        public var keyId: String
        public var displayName: String
        public var scope: String
        /// RFC 3339.
        public var createdAt: String
        /// RFC 3339, when revoked.
        public var revokedAt: String?
    }

    /// What `adminKeys.create` returns: the key, shown once.
    public struct Created: Codable, Sendable, Equatable {
        public var keyId: String
        public var key: String
    }

    let database: PostgresClient
    let clock: any WallClock

    /// Keys in `database`.
    public init(database: PostgresClient, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// The principal of an `Authorization: Bearer <key>` header value. A missing, malformed, unknown or revoked
    /// key is `UNAUTHENTICATED`; nothing says which.
    public func authenticate(authorization: String?) async throws -> AdminPrincipal {
        let unauthenticated = AuthError(.unauthenticated, "A valid admin key is required: Authorization: Bearer <key>.")
        guard let authorization, let space = authorization.firstIndex(of: " "),
            authorization[..<space].lowercased() == "bearer"
        else { throw unauthenticated }
        let key = String(authorization[authorization.index(after: space)...]).trimmingASCIIWhitespace()
        guard !key.isEmpty, key.utf8.count <= 512 else { throw unauthenticated }
        let digest = try SecretDigest.of(key)
        let result = try await database.withPool { pool in
            try await pool.query(
                "SELECT key_id, scope FROM admin_keys WHERE key_hash = $1 AND revoked_at IS NULL", [digest])
        }
        guard let row = result.rows.first else { throw unauthenticated }
        return AdminPrincipal(
            keyID: try row.decode(String.self, at: 0),
            scope: try AdminScope(parsing: try row.decode(String.self, at: 1)))
    }

    /// Makes sure `key` exists as a project-scope key (`--bootstrap-admin-key`). Idempotent across restarts and
    /// servers; a bootstrap key that was revoked stays revoked. Returns false in that case, so the caller can warn.
    public func ensureBootstrap(key: String) async throws -> Bool {
        let digest = try SecretDigest.of(key)
        let keyID = try SecureRandom.identifier()
        let now = clock.now()
        return try await database.withPool { pool in
            try await pool.query(
                """
                INSERT INTO admin_keys (key_id, key_hash, display_name, scope, created_at)
                VALUES ($1, $2, 'bootstrap', 'project', $3) ON CONFLICT (key_hash) DO NOTHING
                """, [keyID, digest, now])
            let state = try await pool.query("SELECT revoked_at IS NULL FROM admin_keys WHERE key_hash = $1", [digest])
            return try state.rows.first?.decode(Bool.self, at: 0) ?? false
        }
    }

    /// `adminKeys.create`: a new key of `scope` (a tenant scope must name an existing tenant).
    public func create(displayName: String, scope: String, actor: AuditLog.Actor) async throws -> Created {
        try actor.principal.requireProject()
        let parsedScope = try AdminScope(parsing: scope)
        guard !displayName.isEmpty, displayName.count <= 128 else {
            throw AuthError(.invalidArgument, "displayName must be 1 to 128 characters.")
        }
        let key = try SecretDigest.make(prefix: Self.prefix)
        let keyID = try SecureRandom.identifier()
        let now = clock.now()
        let tenantID: String? = if case .tenant(let id) = parsedScope { id } else { nil }
        try await database.withPool { pool in
            try await pool.transaction { transaction in
                if let tenantID {
                    let tenant = try await transaction.query("SELECT 1 FROM tenants WHERE tenant_id = $1", [tenantID])
                    guard tenant.rowCount == 1 else {
                        throw AuthError(.tenantNotFound, "There is no tenant \(tenantID).")
                    }
                }
                try await transaction.query(
                    """
                    INSERT INTO admin_keys (key_id, key_hash, display_name, scope, tenant_id, created_at)
                    VALUES ($1, $2, $3, $4, $5, $6)
                    """, [keyID, key.digest, displayName, parsedScope.description, tenantID, now])
                let after: JSONValue = [
                    "keyId": .string(keyID), "displayName": .string(displayName), "scope": .string(scope),
                ]
                try await AuditLog.record(
                    transaction, actor: actor, target: "adminKeys/\(keyID)", tenantID: nil, before: nil, after: after,
                    now: now)
            }
        }
        return Created(keyId: keyID, key: key.secret)
    }

    /// `adminKeys.list`: every key, revoked ones included, oldest first.
    public func list(actor: AdminPrincipal) async throws -> [Description] {
        try actor.requireProject()
        let result = try await database.withPool { pool in
            try await pool.query(
                "SELECT key_id, display_name, scope, created_at, revoked_at FROM admin_keys ORDER BY created_at, key_id",
                [])
        }
        return try result.rows.map { row in
            Description(
                keyId: try row.decode(String.self, at: 0), displayName: try row.decode(String.self, at: 1),
                scope: try row.decode(String.self, at: 2),
                createdAt: RFC3339.string(from: try row.decode(Date.self, at: 3)),
                revokedAt: try row.decode(Date?.self, at: 4).map(RFC3339.string(from:)))
        }
    }

    /// `adminKeys.revoke`: the key stops working at once, on every server. Unknown ids are
    /// `ADMIN_KEY_NOT_FOUND`; revoking a revoked key changes nothing.
    public func revoke(keyID: String, actor: AuditLog.Actor) async throws {
        try actor.principal.requireProject()
        let now = clock.now()
        try await database.withPool { pool in
            try await pool.transaction { transaction in
                let result = try await transaction.query(
                    "UPDATE admin_keys SET revoked_at = coalesce(revoked_at, $2) WHERE key_id = $1 RETURNING scope",
                    [keyID, now])
                guard result.rowCount == 1 else {
                    throw AuthError(.adminKeyNotFound, "There is no admin key \(keyID).")
                }
                try await AuditLog.record(
                    transaction, actor: actor, target: "adminKeys/\(keyID)", tenantID: nil,
                    before: ["revoked": false], after: ["revoked": true], now: now)
            }
        }
    }
}
