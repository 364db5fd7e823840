import TesseraCore
import TesseraJSON
import TesseraOAuth
import TesseraRPC

/// `oauthClients.*` (API §5), with `oauthClients.rotateSecret` as an extension of the contract.
extension AdminMethods {
    struct CreateClientParams: Codable, Sendable {
        var tenantId: String?
        /// An `OAuthClient`; read strictly by ``OAuthClientSettings/init(json:)``.
        var client: JSONObject
    }

    struct ClientIDParams: Codable, Sendable {
        var clientId: String
    }

    struct ListClientsParams: Codable, Sendable {
        var tenantId: String?
        var pageSize: Int?
        var pageToken: String?
    }

    struct UpdateClientParams: Codable, Sendable {
        var clientId: String
        var client: JSONObject
        var updateMask: String?
    }

    static func registerClients(_ clients: OAuthClientsAdmin, into table: inout RPCMethodTable) {
        table.register(
            "oauthClients.create",
            summary: "Registers an OAuth client; a confidential client's clientSecret is shown only in this answer.",
            params: CreateClientParams.self, result: OAuthClientResource.self
        ) { params, context in
            try await clients.create(
                tenantID: params.tenantId, params.client, actor: try context.actor("oauthClients.create"))
        }
        table.register(
            "oauthClients.get", summary: "Returns an OAuth client (never its secret).", params: ClientIDParams.self,
            result: OAuthClientResource.self
        ) { params, context in
            try await clients.get(clientID: params.clientId, actor: try context.admin())
        }
        table.register(
            "oauthClients.list", summary: "Lists the OAuth clients of the project level or of a tenant.",
            params: ListClientsParams.self, result: OAuthClientsAdmin.Page.self
        ) { params, context in
            try await clients.list(
                tenantID: params.tenantId, pageSize: params.pageSize, pageToken: params.pageToken,
                actor: try context.admin())
        }
        table.register(
            "oauthClients.update",
            summary: "Updates an OAuth client (with an optional updateMask); type never changes.",
            params: UpdateClientParams.self, result: OAuthClientResource.self
        ) { params, context in
            try await clients.update(
                clientID: params.clientId, params.client, updateMask: params.updateMask,
                actor: try context.actor("oauthClients.update"))
        }
        table.register(
            "oauthClients.delete", summary: "Deletes an OAuth client with its codes and tokens.",
            params: ClientIDParams.self, result: JSONObject.self
        ) { params, context in
            try await clients.delete(clientID: params.clientId, actor: try context.actor("oauthClients.delete"))
            return JSONObject()
        }
        table.register(
            "oauthClients.rotateSecret",
            summary: "Gives a confidential client a new secret, shown only in this answer; the old one stops working.",
            params: ClientIDParams.self, result: OAuthClientsAdmin.RotatedSecret.self
        ) { params, context in
            try await clients.rotateSecret(
                clientID: params.clientId, actor: try context.actor("oauthClients.rotateSecret"))
        }
    }
}
