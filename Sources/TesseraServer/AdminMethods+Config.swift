import TesseraCore
import TesseraJSON
import TesseraRPC

/// `projects.*`, `tenants.*` and `auditLog.list` (API §5).
extension AdminMethods {
    struct UpdateConfigParams: Codable, Sendable {
        var config: JSONObject
        var updateMask: String?
    }

    struct CreateTenantParams: Codable, Sendable {
        var tenant: JSONObject
    }

    struct TenantIDParams: Codable, Sendable {
        var tenantId: String
    }

    struct PageParams: Codable, Sendable {
        var pageSize: Int?
        var pageToken: String?
    }

    struct UpdateTenantParams: Codable, Sendable {
        var tenantId: String
        var tenant: JSONObject
        var updateMask: String?
    }

    struct AuditListParams: Codable, Sendable {
        var tenantId: String?
        var pageSize: Int?
        var pageToken: String?
    }

    static func registerConfig(_ admin: ConfigAdmin, into table: inout RPCMethodTable) {
        table.register(
            "projects.getConfig", summary: "Returns the project configuration.", params: RPCNoParams.self,
            result: JSONObject.self
        ) { _, context in
            try await admin.projectConfig(actor: try context.admin())
        }
        table.register(
            "projects.updateConfig", summary: "Updates the project configuration (with an optional updateMask).",
            params: UpdateConfigParams.self, result: JSONObject.self
        ) { params, context in
            try await admin.updateProjectConfig(
                params.config, updateMask: params.updateMask, actor: try context.actor("projects.updateConfig"))
        }
        table.register(
            "tenants.create", summary: "Creates a tenant.", params: CreateTenantParams.self, result: JSONObject.self
        ) { params, context in
            try await admin.createTenant(params.tenant, actor: try context.actor("tenants.create"))
        }
        table.register(
            "tenants.get", summary: "Returns a tenant with its effective MFA configuration.",
            params: TenantIDParams.self, result: JSONObject.self
        ) { params, context in
            try await admin.tenant(params.tenantId, actor: try context.admin())
        }
        table.register(
            "tenants.list", summary: "Lists tenants.", params: PageParams.self, result: ConfigAdmin.TenantPage.self
        ) { params, context in
            try await admin.tenants(pageSize: params.pageSize, pageToken: params.pageToken, actor: try context.admin())
        }
        table.register(
            "tenants.update", summary: "Updates a tenant (with an optional updateMask).",
            params: UpdateTenantParams.self, result: JSONObject.self
        ) { params, context in
            try await admin.updateTenant(
                params.tenantId, params.tenant, updateMask: params.updateMask,
                actor: try context.actor("tenants.update"))
        }
        table.register(
            "tenants.delete", summary: "Deletes a tenant and everything it owns.", params: TenantIDParams.self,
            result: JSONObject.self
        ) { params, context in
            try await admin.deleteTenant(params.tenantId, actor: try context.actor("tenants.delete"))
            return JSONObject()
        }
        table.register(
            "auditLog.list", summary: "Lists audit events, newest first.", params: AuditListParams.self,
            result: AuditLog.Page.self
        ) { params, context in
            try await admin.auditEvents(
                tenantID: params.tenantId, pageSize: params.pageSize, pageToken: params.pageToken,
                actor: try context.admin())
        }
    }
}
