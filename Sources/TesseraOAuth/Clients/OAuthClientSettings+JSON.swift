public import TesseraCore
public import TesseraJSON

extension OAuthClientSettings {
    /// The members of an `OAuthClient` body that are never set from input.
    public static let outputOnlyKeys = ["clientId", "tenantId", "createTime", "updateTime"]
    /// The members of the settable fields.
    public static let settableKeys = [
        "clientName", "type", "redirectUris", "grantTypes", "scopes", "defaultScopes", "accessTokenTtl",
        "refreshTokenTtl", "postLogoutRedirectUris",
    ]

    /// What an `updateMask` of `oauthClients.update` may name: every settable field, each whole.
    public static let updatePaths = ConfigPaths(
        fields: settableKeys.map { ConfigField($0) }, outputOnlyFields: outputOnlyKeys,
        normalize: { candidate, stored throws(AuthError) in
            try OAuthClientSettings(json: candidate, replacing: stored).json
        })

    /// Reads an `OAuthClient` body strictly: members outside ``settableKeys`` and ``outputOnlyKeys`` are refused
    /// by name, `null` reads as absent, and absent fields take the API defaults (`clientName` and `type` have none).
    /// Output-only members are not read here: the caller decides what they may say.
    public init(json: JSONObject) throws(AuthError) {
        try Self.requireKnownKeys(json)
        guard let name = Self.member("clientName", of: json) else {
            throw AuthError(.invalidArgument, "client.clientName is required")
        }
        guard let type = Self.member("type", of: json) else {
            throw AuthError(.invalidArgument, "client.type is required: \"public\" or \"confidential\"")
        }
        try self.init(
            clientName: try Self.string(name, at: "client.clientName"),
            type: try Self.type(type),
            redirectURIs: try Self.member("redirectUris", of: json).map { value throws(AuthError) in
                try Self.strings(value, at: "client.redirectUris")
            } ?? [],
            grantTypes: try Self.member("grantTypes", of: json).map(Self.grantTypes) ?? OAuthClient.defaultGrantTypes,
            scopes: try Self.member("scopes", of: json).map { value throws(AuthError) in
                try Self.strings(value, at: "client.scopes")
            } ?? OAuthClient.defaultScopes,
            defaultScopes: try Self.member("defaultScopes", of: json).map { value throws(AuthError) in
                try Self.strings(value, at: "client.defaultScopes")
            },
            accessTokenTTL: try Self.member("accessTokenTtl", of: json).map { value throws(AuthError) in
                try Self.integer(value, at: "client.accessTokenTtl")
            } ?? OAuthClient.defaultAccessTokenTTL,
            refreshTokenTTL: try Self.member("refreshTokenTtl", of: json).map { value throws(AuthError) in
                try Self.integer(value, at: "client.refreshTokenTtl")
            } ?? OAuthClient.defaultRefreshTokenTTL,
            postLogoutRedirectURIs: try Self.member("postLogoutRedirectUris", of: json).map { value throws(AuthError) in
                try Self.strings(value, at: "client.postLogoutRedirectUris")
            } ?? [])
    }

    /// Reads the body of an update of the client whose ``OAuthClientResource`` JSON is `stored`: as
    /// ``init(json:)``, except that an omitted `type` is the stored one, a different `type` is refused (a client
    /// cannot change type: create a new one), and `clientId` or `tenantId`, when given, must name the stored client
    /// and its tenant (a client cannot move between tenants).
    public init(json: JSONObject, replacing stored: JSONObject) throws(AuthError) {
        try Self.checkUpdate(json, of: stored)
        var body = json
        if Self.member("type", of: json) == nil { body["type"] = stored["type"] }
        try self.init(json: body)
    }

    /// Refuses, before anything is merged, an update body with an unknown member, a `clientId` or `tenantId` that
    /// does not name the stored client and its tenant, or a `type` other than the stored one; whatever the mask
    /// names, so a typo or an impossible change is never silently ignored.
    public static func checkUpdate(_ json: JSONObject, of stored: JSONObject) throws(AuthError) {
        try requireKnownKeys(json)
        if let id = member("clientId", of: json), id != stored["clientId"] {
            throw AuthError(.invalidArgument, "client.clientId does not name the client being updated")
        }
        if let tenant = member("tenantId", of: json), tenant != stored["tenantId"] {
            throw AuthError(.invalidArgument, "client.tenantId: a client cannot move to another tenant")
        }
        let storedType = stored["type"] ?? .null
        if let type = member("type", of: json), type != storedType {
            throw AuthError(
                .invalidArgument,
                "client.type cannot change (it is \(storedType.stringValue ?? "?")); register a new client instead")
        }
    }

    /// The settable fields as the API names them; `defaultScopes` only when set.
    public var json: JSONObject {
        var object: JSONObject = [
            "clientName": .string(clientName),
            "type": .string(type.rawValue),
            "redirectUris": .array(redirectURIs.map(JSONValue.string)),
            "grantTypes": .array(grantTypes.map { .string($0.rawValue) }),
            "scopes": .array(scopes.map(JSONValue.string)),
            "accessTokenTtl": .integer(Int64(accessTokenTTL)),
            "refreshTokenTtl": .integer(Int64(refreshTokenTTL)),
            "postLogoutRedirectUris": .array(postLogoutRedirectURIs.map(JSONValue.string)),
        ]
        if let defaultScopes { object["defaultScopes"] = .array(defaultScopes.map(JSONValue.string)) }
        return object
    }

    private static func requireKnownKeys(_ json: JSONObject) throws(AuthError) {
        for key in json.keys where !settableKeys.contains(key) && !outputOnlyKeys.contains(key) {
            throw AuthError(.invalidArgument, "client.\(key) is not a known field")
        }
    }

    /// The member's value, where `null` reads as absent (as in every other admin body).
    private static func member(_ key: String, of object: JSONObject) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    private static func string(_ value: JSONValue, at path: String) throws(AuthError) -> String {
        guard let text = value.stringValue else { throw AuthError(.invalidArgument, "\(path) must be a string") }
        return text
    }

    private static func strings(_ value: JSONValue, at path: String) throws(AuthError) -> [String] {
        guard let elements = value.arrayValue else {
            throw AuthError(.invalidArgument, "\(path) must be an array of strings")
        }
        var texts: [String] = []
        for (index, element) in elements.enumerated() {
            texts.append(try string(element, at: "\(path)[\(index)]"))
        }
        return texts
    }

    private static func integer(_ value: JSONValue, at path: String) throws(AuthError) -> Int {
        guard let number = value.intValue else { throw AuthError(.invalidArgument, "\(path) must be an integer") }
        return number
    }

    private static func type(_ value: JSONValue) throws(AuthError) -> OAuthClientType {
        guard let text = value.stringValue, let type = OAuthClientType(rawValue: text) else {
            throw AuthError(.invalidArgument, "client.type must be \"public\" or \"confidential\"")
        }
        return type
    }

    private static func grantTypes(_ value: JSONValue) throws(AuthError) -> [OAuthGrantType] {
        var grants: [OAuthGrantType] = []
        for (index, text) in try strings(value, at: "client.grantTypes").enumerated() {
            guard let grant = OAuthGrantType(rawValue: text) else {
                let names = OAuthGrantType.allCases.map(\.rawValue).joined(separator: ", ")
                throw AuthError(.invalidArgument, "client.grantTypes[\(index)] must be one of \(names)")
            }
            grants.append(grant)
        }
        return grants
    }
}
