import TesseraCore
import TesseraJSON
import TesseraRPC

/// `adminKeys.*` and `keys.rotate` (API §5).
extension AdminMethods {
    struct CreateKeyParams: Codable, Sendable {
        var displayName: String
        var scope: String
    }

    struct KeyList: Codable, Sendable {
        var keys: [AdminKeys.Description]
    }

    struct KeyIDParams: Codable, Sendable {
        var keyId: String
    }

    struct RotateResult: Codable, Sendable {
        var kid: String
    }

    static func registerKeys(_ keys: AdminKeys, signingKeys: SigningKeys, into table: inout RPCMethodTable) {
        table.register(
            "adminKeys.create", summary: "Creates an admin key; the key is shown only in this answer.",
            params: CreateKeyParams.self, result: AdminKeys.Created.self
        ) { params, context in
            try await keys.create(
                displayName: params.displayName, scope: params.scope, actor: try context.actor("adminKeys.create"))
        }
        table.register(
            "adminKeys.list", summary: "Lists admin keys (never the keys themselves).", params: RPCNoParams.self,
            result: KeyList.self
        ) { _, context in
            KeyList(keys: try await keys.list(actor: try context.admin()))
        }
        table.register(
            "adminKeys.revoke", summary: "Revokes an admin key.", params: KeyIDParams.self, result: JSONObject.self
        ) { params, context in
            try await keys.revoke(keyID: params.keyId, actor: try context.actor("adminKeys.revoke"))
            return JSONObject()
        }
        table.register(
            "keys.rotate", summary: "Makes a new token signing key; old keys stay published until their tokens expire.",
            params: RPCNoParams.self, result: RotateResult.self
        ) { _, context in
            RotateResult(kid: try await signingKeys.rotate(actor: try context.actor("keys.rotate")))
        }
    }
}
