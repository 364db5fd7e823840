import FoundationEssentials
import TesseraCore
public import TesseraJSON

extension OAuthClient {
    /// The client as the admin API shows it, without a secret.
    public var resource: OAuthClientResource {
        OAuthClientResource(
            clientId: clientID, tenantId: tenantID, clientName: clientName, type: type.rawValue,
            redirectUris: redirectURIs, postLogoutRedirectUris: postLogoutRedirectURIs,
            grantTypes: grantTypes.map(\.rawValue), scopes: scopes,
            defaultScopes: defaultScopes, accessTokenTtl: accessTokenTTL, refreshTokenTtl: refreshTokenTTL,
            createTime: RFC3339.string(from: createdAt), updateTime: RFC3339.string(from: updatedAt), clientSecret: nil)
    }

    /// ``resource`` as a JSON object, the form updates and audit events work on.
    public var resourceJSON: JSONObject {
        var object: JSONObject = ["clientId": .string(clientID)]
        if let tenantID { object["tenantId"] = .string(tenantID) }
        object["clientName"] = .string(clientName)
        object["type"] = .string(type.rawValue)
        object["redirectUris"] = .array(redirectURIs.map(JSONValue.string))
        object["postLogoutRedirectUris"] = .array(postLogoutRedirectURIs.map(JSONValue.string))
        object["grantTypes"] = .array(grantTypes.map { .string($0.rawValue) })
        object["scopes"] = .array(scopes.map(JSONValue.string))
        if let defaultScopes { object["defaultScopes"] = .array(defaultScopes.map(JSONValue.string)) }
        object["accessTokenTtl"] = .integer(Int64(accessTokenTTL))
        object["refreshTokenTtl"] = .integer(Int64(refreshTokenTTL))
        object["createTime"] = .string(RFC3339.string(from: createdAt))
        object["updateTime"] = .string(RFC3339.string(from: updatedAt))
        return object
    }

    /// The client with `settings` applied, last updated at `updatedAt`.
    func applying(_ settings: OAuthClientSettings, updatedAt: Date) -> OAuthClient {
        OAuthClient(
            clientID: clientID, tenantID: tenantID, clientName: settings.clientName, type: settings.type,
            redirectURIs: settings.redirectURIs, grantTypes: settings.grantTypes, scopes: settings.scopes,
            defaultScopes: settings.defaultScopes, accessTokenTTL: settings.accessTokenTTL,
            refreshTokenTTL: settings.refreshTokenTTL, secretDigest: secretDigest,
            postLogoutRedirectURIs: settings.postLogoutRedirectURIs, createdAt: createdAt, updatedAt: updatedAt)
    }
}
