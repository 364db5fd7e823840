public import TesseraJSON
import TesseraPostgres

/// Reads the stored project configuration and tenants, and resolves the configuration a user method runs under
/// (API §4 rule 1). The project row is created with defaults on first write; until then the defaults apply.
public final class ConfigStore: Sendable {
    /// Creates the store.
    public init() {}

    /// The project configuration.
    func project(_ db: some SQLRunner, forUpdate: Bool = false) async throws -> ProjectConfig {
        let result = try await db.query(
            "SELECT config::text FROM project_config" + (forUpdate ? " FOR UPDATE" : ""), [])
        guard let text = try result.rows.first?.decode(String.self, at: 0) else { return try ProjectConfig(json: [:]) }
        return try ProjectConfig(json: try Self.object(text))
    }

    /// Tenant `tenantID`, or `TENANT_NOT_FOUND`.
    func tenant(_ db: some SQLRunner, _ tenantID: String, forUpdate: Bool = false) async throws -> Tenant {
        let result = try await db.query(
            "SELECT config::text FROM tenants WHERE tenant_id = $1" + (forUpdate ? " FOR UPDATE" : ""), [tenantID])
        guard let text = try result.rows.first?.decode(String.self, at: 0) else {
            throw AuthError(.tenantNotFound, "There is no tenant \(tenantID).")
        }
        return try Tenant(json: try Self.object(text), tenantId: tenantID)
    }

    /// `TENANT_NOT_FOUND` unless `tenantID` is nil (the project level) or names an existing tenant.
    public func requireTenant(_ db: some SQLRunner, _ tenantID: String?) async throws {
        guard let tenantID else { return }
        let result = try await db.query("SELECT 1 FROM tenants WHERE tenant_id = $1", [tenantID])
        guard result.rowCount == 1 else { throw AuthError(.tenantNotFound, "There is no tenant \(tenantID).") }
    }

    /// The configuration of the project level (nil) or of a tenant, by inheritance, in one round trip.
    public func effective(_ db: some SQLRunner, tenantID: String?) async throws -> EffectiveConfig {
        let result = try await db.query(
            """
            SELECT (SELECT config::text FROM project_config),
                (SELECT config::text FROM tenants WHERE tenant_id = $1)
            """, [tenantID ?? ""])
        let row = result[0]
        let project = try ProjectConfig(json: try row.decode(String?.self, at: 0).map(Self.object) ?? [:])
        guard let tenantID else { return EffectiveConfig(project: project) }
        guard let tenantText = try row.decode(String?.self, at: 1) else {
            throw AuthError(.tenantNotFound, "There is no tenant \(tenantID).")
        }
        return EffectiveConfig(project: project, tenant: try Tenant(json: try Self.object(tenantText), tenantId: tenantID))
    }

    /// ``effective(_:tenantID:)`` for a user method: `PROJECT_DISABLED` when the tenant has `disableAuth`.
    public func forUserMethod(_ db: some SQLRunner, tenantID: String?) async throws -> EffectiveConfig {
        let config = try await effective(db, tenantID: tenantID)
        guard !config.disabled else {
            throw AuthError(.projectDisabled, "Sign-in is disabled for this tenant.")
        }
        return config
    }

    /// Parses stored JSON text into an object.
    static func object(_ text: String) throws -> JSONObject {
        guard let object = try JSONParser().parse(Array(text.utf8)).objectValue else {
            throw AuthError(.invalidConfig, "stored configuration is not an object")
        }
        return object
    }
}
