import FoundationEssentials
import TesseraCrypto
public import TesseraJSON
public import TesseraPostgres

/// The `projects.*` and `tenants.*` admin methods (API §5). Updates read the stored document under a row lock,
/// apply the body and mask, validate the result whole and write it with its audit event in one transaction.
public final class ConfigAdmin: Sendable {
    /// One page of `tenants.list`.
    public struct TenantPage: Codable, Sendable, Equatable {
        public var tenants: [JSONObject]
        public var nextPageToken: String?
    }

    let database: PostgresClient
    let configs: ConfigStore
    let clock: any WallClock

    /// The configuration admin over `database`.
    public init(database: PostgresClient, configs: ConfigStore, clock: any WallClock) {
        self.database = database
        self.configs = configs
        self.clock = clock
    }

    /// `projects.getConfig`.
    public func projectConfig(actor: AdminPrincipal) async throws -> JSONObject {
        try actor.requireProject()
        return try await database.withPool { pool in try await self.configs.project(pool).json }
    }

    /// `projects.updateConfig`.
    public func updateProjectConfig(
        _ body: JSONObject, updateMask: String?, actor: AuditLog.Actor
    ) async throws -> JSONObject {
        try actor.principal.requireProject()
        let now = clock.now()
        defer { configs.changed(tenantID: nil) }
        return try await database.withPool { pool in
            try await pool.transaction { transaction in
                try await transaction.query(
                    """
                    INSERT INTO project_config (config, updated_at) VALUES ($1, $2) ON CONFLICT (singleton) DO NOTHING
                    """, [PostgresJSONB(JSONValue.object(try ProjectConfig(json: [:]).json).text), now])
                let before = try await self.configs.project(transaction, forUpdate: true).json
                let merged = try ConfigUpdate.apply(body: body, to: before, updateMask: updateMask, paths: .project)
                let after = try ProjectConfig(json: merged).json
                try await transaction.query(
                    "UPDATE project_config SET config = $1, updated_at = $2",
                    [PostgresJSONB(JSONValue.object(after).text), now])
                try await self.configs.announceChange(tenantID: nil, in: transaction)
                try await AuditLog.record(
                    transaction, actor: actor, target: "projects/config", tenantID: nil, before: .object(before),
                    after: .object(after), now: now)
                return after
            }
        }
    }

    /// `tenants.create`: a tenant with a generated id.
    public func createTenant(_ body: JSONObject, actor: AuditLog.Actor) async throws -> JSONObject {
        try actor.principal.requireProject()
        guard !body.contains(key: "tenantId"), !body.contains(key: "name") else {
            throw AuthError(.invalidArgument, "tenantId and name are assigned by the server.")
        }
        let tenantID = "t-" + (try SecureRandom.identifier()).lowercased().filter { $0.isLetter || $0.isNumber }
        let tenant = try Tenant(json: body, tenantId: tenantID)
        let now = clock.now()
        defer { configs.changed(tenantID: tenantID) }
        return try await database.withPool { pool in
            try await pool.transaction { transaction in
                try await transaction.query(
                    "INSERT INTO tenants (tenant_id, config, created_at, updated_at) VALUES ($1, $2, $3, $3)",
                    [tenantID, PostgresJSONB(JSONValue.object(tenant.json).text), now])
                try await self.configs.announceChange(tenantID: tenantID, in: transaction)
                try await AuditLog.record(
                    transaction, actor: actor, target: tenant.name, tenantID: tenantID, before: nil,
                    after: .object(tenant.json), now: now)
                return tenant.json
            }
        }
    }

    /// `tenants.get`: the tenant with `effectiveMfaConfig`.
    public func tenant(_ tenantID: String, actor: AdminPrincipal) async throws -> JSONObject {
        try actor.require(tenant: tenantID)
        return try await database.withPool { pool in
            let tenant = try await self.configs.tenant(pool, tenantID)
            return tenant.json(effectiveUnder: try await self.configs.project(pool))
        }
    }

    /// `tenants.list`: ordered by id.
    public func tenants(pageSize: Int?, pageToken: String?, actor: AdminPrincipal) async throws -> TenantPage {
        try actor.requireProject()
        let size = try PageCursor.pageSize(pageSize)
        let after = try pageToken.map(PageCursor.decode)?.id ?? ""
        let result = try await database.withPool { pool in
            try await pool.query(
                "SELECT tenant_id, config::text FROM tenants WHERE tenant_id > $1 ORDER BY tenant_id LIMIT $2",
                [after, size + 1])
        }
        var tenants: [JSONObject] = []
        for row in result.rows.prefix(size) {
            tenants.append(
                try Tenant(
                    json: try ConfigStore.object(try row.decode(String.self, at: 1)),
                    tenantId: try row.decode(String.self, at: 0)
                ).json)
        }
        let next =
            result.rowCount > size
            ? tenants.last?["tenantId"]?.stringValue.map { PageCursor(time: nil, id: $0).encoded } : nil
        return TenantPage(tenants: tenants, nextPageToken: next)
    }

    /// `tenants.update`.
    public func updateTenant(
        _ tenantID: String, _ body: JSONObject, updateMask: String?, actor: AuditLog.Actor
    ) async throws -> JSONObject {
        try actor.principal.require(tenant: tenantID)
        let now = clock.now()
        defer { configs.changed(tenantID: tenantID) }
        return try await database.withPool { pool in
            try await pool.transaction { transaction in
                let before = try await self.configs.tenant(transaction, tenantID, forUpdate: true).json
                let merged = try ConfigUpdate.apply(body: body, to: before, updateMask: updateMask, paths: .tenant)
                let after = try Tenant(json: merged, tenantId: tenantID).json
                try await transaction.query(
                    "UPDATE tenants SET config = $2, updated_at = $3 WHERE tenant_id = $1",
                    [tenantID, PostgresJSONB(JSONValue.object(after).text), now])
                try await self.configs.announceChange(tenantID: tenantID, in: transaction)
                try await AuditLog.record(
                    transaction, actor: actor, target: "tenants/\(tenantID)", tenantID: tenantID,
                    before: .object(before), after: .object(after), now: now)
                return after
            }
        }
    }

    /// `tenants.delete`: the tenant and everything it owns (users and their tokens, enrolments and codes, its
    /// admin keys). Project scope only: a tenant key may change its tenant but not delete it.
    public func deleteTenant(_ tenantID: String, actor: AuditLog.Actor) async throws {
        try actor.principal.requireProject()
        let now = clock.now()
        defer { configs.changed(tenantID: tenantID) }
        try await database.withPool { pool in
            try await pool.transaction { transaction in
                let before = try await self.configs.tenant(transaction, tenantID, forUpdate: true).json
                try await transaction.query("DELETE FROM tenants WHERE tenant_id = $1", [tenantID])
                try await self.configs.announceChange(tenantID: tenantID, in: transaction)
                try await AuditLog.record(
                    transaction, actor: actor, target: "tenants/\(tenantID)", tenantID: tenantID,
                    before: .object(before), after: nil, now: now)
            }
        }
    }

    /// `auditLog.list` of the project level (nil) or a tenant (also after the tenant was deleted).
    public func auditEvents(
        tenantID: String?, pageSize: Int?, pageToken: String?, actor: AdminPrincipal
    ) async throws -> AuditLog.Page {
        try actor.require(tenant: tenantID)
        let size = try PageCursor.pageSize(pageSize)
        return try await database.withPool { pool in
            try await AuditLog.list(pool, tenantID: tenantID, pageSize: size, pageToken: pageToken)
        }
    }
}
