import TesseraJSON

/// The mapping from admin commands to RPCs (API §5): one pure function per method, params named as the contract
/// names them. Optional params are left out when not given, so the server applies its own defaults.
extension AdminCall {
    /// A page of a list: `pageSize` (1–100) and `pageToken`, both optional.
    struct Page: Equatable, Sendable {
        var size: Int?
        var token: String?

        /// Adds `pageSize` and `pageToken` to `params` when set.
        func add(to params: inout JSONObject) {
            if let size { params["pageSize"] = .integer(Int64(size)) }
            if let token { params["pageToken"] = .string(token) }
        }
    }

    /// The user fields `users.create` and `users.update` may set; nil fields are not sent.
    struct UserFields: Equatable, Sendable {
        var email: String?
        var password: String?
        var emailVerified: Bool?
        var phoneNumber: String?
        var displayName: String?
        var disabled: Bool?
        /// The enrolments to keep, as `[{mfaEnrollmentId}]`, when some are being removed (update only).
        var mfaEnrollmentIDs: [String]?

        /// Whether no field is set.
        var isEmpty: Bool { self == UserFields() }

        func add(to params: inout JSONObject) {
            if let email { params["email"] = .string(email) }
            if let password { params["password"] = .string(password) }
            if let emailVerified { params["emailVerified"] = .bool(emailVerified) }
            if let phoneNumber { params["phoneNumber"] = .string(phoneNumber) }
            if let displayName { params["displayName"] = .string(displayName) }
            if let disabled { params["disabled"] = .bool(disabled) }
            if let mfaEnrollmentIDs {
                params["mfaInfo"] = .array(mfaEnrollmentIDs.map { .object(["mfaEnrollmentId": .string($0)]) })
            }
        }
    }

    /// The OAuthClient fields the `clients` commands take as options; nil fields are not sent, and so are empty
    /// lists (an option that was not repeated at all).
    struct ClientFields: Equatable, Sendable {
        var clientName: String?
        var type: String?
        var redirectURIs: [String] = []
        var postLogoutRedirectURIs: [String] = []
        var grantTypes: [String] = []
        var scopes: [String] = []
        var defaultScopes: [String] = []
        var accessTokenTTL: Int?
        var refreshTokenTTL: Int?

        /// The members set, in the contract's names, in order.
        var members: [(key: String, value: JSONValue)] {
            var members: [(key: String, value: JSONValue)] = []
            if let clientName { members.append(("clientName", .string(clientName))) }
            if let type { members.append(("type", .string(type))) }
            let lists = [
                ("redirectUris", redirectURIs), ("postLogoutRedirectUris", postLogoutRedirectURIs),
                ("grantTypes", grantTypes), ("scopes", scopes), ("defaultScopes", defaultScopes),
            ]
            for (key, values) in lists where !values.isEmpty {
                members.append((key, .array(values.map(JSONValue.string))))
            }
            if let accessTokenTTL { members.append(("accessTokenTtl", .integer(Int64(accessTokenTTL)))) }
            if let refreshTokenTTL { members.append(("refreshTokenTtl", .integer(Int64(refreshTokenTTL)))) }
            return members
        }

        /// Whether no field is set.
        var isEmpty: Bool { members.isEmpty }

        /// `body` with every set field written over it.
        func applied(to body: JSONObject) -> JSONObject {
            var body = body
            for (key, value) in members { body[key] = value }
            return body
        }

        /// The update mask naming exactly the set fields.
        var mask: String { members.map(\.key).joined(separator: ",") }
    }

    /// How `users get` names the user: exactly one of these.
    enum UserLookup: Equatable, Sendable {
        case localID(String)
        case email(String)
        case phoneNumber(String)
    }

    // MARK: Project configuration

    static func getConfig() -> AdminCall {
        AdminCall("projects.getConfig")
    }

    /// `projects.updateConfig` with a whole or partial ProjectConfig and an optional comma-separated mask.
    static func updateConfig(_ config: JSONObject, mask: String?) -> AdminCall {
        var params: JSONObject = ["config": .object(config)]
        if let mask { params["updateMask"] = .string(mask) }
        return AdminCall("projects.updateConfig", params)
    }

    /// `projects.updateConfig` replacing `mfa` only.
    static func updateProjectMFA(_ mfa: JSONObject) -> AdminCall {
        updateConfig(["mfa": .object(mfa)], mask: "mfa")
    }

    // MARK: Tenants

    /// `tenants.create` with `body` (a Tenant, possibly empty) and the display name set on top of it.
    static func createTenant(displayName: String, body: JSONObject) -> AdminCall {
        var tenant = body
        tenant["displayName"] = .string(displayName)
        return AdminCall("tenants.create", ["tenant": .object(tenant)])
    }

    static func getTenant(_ tenantID: String) -> AdminCall {
        AdminCall("tenants.get", ["tenantId": .string(tenantID)])
    }

    static func listTenants(_ page: Page) -> AdminCall {
        var params = JSONObject()
        page.add(to: &params)
        return AdminCall("tenants.list", params)
    }

    static func updateTenant(_ tenantID: String, _ tenant: JSONObject, mask: String?) -> AdminCall {
        var params: JSONObject = ["tenantId": .string(tenantID), "tenant": .object(tenant)]
        if let mask { params["updateMask"] = .string(mask) }
        return AdminCall("tenants.update", params)
    }

    /// `tenants.update` replacing `mfaConfig` only.
    static func updateTenantMFA(_ tenantID: String, _ mfa: JSONObject) -> AdminCall {
        updateTenant(tenantID, ["mfaConfig": .object(mfa)], mask: "mfaConfig")
    }

    static func deleteTenant(_ tenantID: String) -> AdminCall {
        AdminCall("tenants.delete", ["tenantId": .string(tenantID)])
    }

    // MARK: Admin keys and signing keys

    /// `adminKeys.create`; `scope` must be `project` or `tenant:<id>`.
    static func createAdminKey(displayName: String, scope: String) throws(AdminUsageError) -> AdminCall {
        let isTenantScope = scope.hasPrefix("tenant:") && scope.count > "tenant:".count
        guard scope == "project" || isTenantScope else {
            throw AdminUsageError("--scope must be 'project' or 'tenant:<tenant id>'")
        }
        return AdminCall("adminKeys.create", ["displayName": .string(displayName), "scope": .string(scope)])
    }

    static func listAdminKeys() -> AdminCall {
        AdminCall("adminKeys.list")
    }

    static func revokeAdminKey(_ keyID: String) -> AdminCall {
        AdminCall("adminKeys.revoke", ["keyId": .string(keyID)])
    }

    static func rotateSigningKey() -> AdminCall {
        AdminCall("keys.rotate")
    }

    // MARK: Users

    static func createUser(tenantID: String?, _ fields: UserFields) -> AdminCall {
        var params = tenantParams(tenantID)
        fields.add(to: &params)
        return AdminCall("users.create", params)
    }

    static func getUser(tenantID: String?, _ lookup: UserLookup) -> AdminCall {
        var params = tenantParams(tenantID)
        switch lookup {
        case .localID(let localID): params["localId"] = .string(localID)
        case .email(let email): params["email"] = .string(email)
        case .phoneNumber(let phoneNumber): params["phoneNumber"] = .string(phoneNumber)
        }
        return AdminCall("users.get", params)
    }

    static func listUsers(tenantID: String?, _ page: Page) -> AdminCall {
        var params = tenantParams(tenantID)
        page.add(to: &params)
        return AdminCall("users.list", params)
    }

    static func updateUser(tenantID: String?, localID: String, _ fields: UserFields) -> AdminCall {
        var params = tenantParams(tenantID)
        params["localId"] = .string(localID)
        fields.add(to: &params)
        return AdminCall("users.update", params)
    }

    /// The enrolment ids of `user` (a `users.get` result) without `removed`, for `users update --remove-mfa`.
    /// Throws when the user has no enrolment with one of the removed ids, so a typo removes nothing.
    static func enrollmentIDs(of user: JSONValue, removing removed: [String]) throws(AdminFailure) -> [String] {
        let current = (user["mfaInfo"]?.arrayValue ?? []).compactMap { $0["mfaEnrollmentId"]?.stringValue }
        for id in removed where !current.contains(id) {
            let localID = user["localId"]?.stringValue ?? "?"
            throw .refused("user \(localID) has no MFA enrolment \(id); nothing was changed")
        }
        return current.filter { !removed.contains($0) }
    }

    static func deleteUser(tenantID: String?, localID: String) -> AdminCall {
        var params = tenantParams(tenantID)
        params["localId"] = .string(localID)
        return AdminCall("users.delete", params)
    }

    static func revokeUserTokens(tenantID: String?, localID: String) -> AdminCall {
        var params = tenantParams(tenantID)
        params["localId"] = .string(localID)
        return AdminCall("users.revokeTokens", params)
    }

    // MARK: OAuth clients

    /// `oauthClients.create` with `client` (an OAuthClient) in `tenantID` (nil: the project level).
    static func createClient(tenantID: String?, _ client: JSONObject) -> AdminCall {
        var params = tenantParams(tenantID)
        params["client"] = .object(client)
        return AdminCall("oauthClients.create", params)
    }

    static func getClient(_ clientID: String) -> AdminCall {
        AdminCall("oauthClients.get", ["clientId": .string(clientID)])
    }

    static func listClients(tenantID: String?, _ page: Page) -> AdminCall {
        var params = tenantParams(tenantID)
        page.add(to: &params)
        return AdminCall("oauthClients.list", params)
    }

    static func updateClient(_ clientID: String, _ client: JSONObject, mask: String?) -> AdminCall {
        var params: JSONObject = ["clientId": .string(clientID), "client": .object(client)]
        if let mask { params["updateMask"] = .string(mask) }
        return AdminCall("oauthClients.update", params)
    }

    static func deleteClient(_ clientID: String) -> AdminCall {
        AdminCall("oauthClients.delete", ["clientId": .string(clientID)])
    }

    static func rotateClientSecret(_ clientID: String) -> AdminCall {
        AdminCall("oauthClients.rotateSecret", ["clientId": .string(clientID)])
    }

    // MARK: Audit log

    static func listAuditEvents(tenantID: String?, _ page: Page) -> AdminCall {
        var params = tenantParams(tenantID)
        page.add(to: &params)
        return AdminCall("auditLog.list", params)
    }

    private static func tenantParams(_ tenantID: String?) -> JSONObject {
        var params = JSONObject()
        if let tenantID { params["tenantId"] = .string(tenantID) }
        return params
    }
}
