import FactorServices
import TesseraCore
import TesseraJSON
import TesseraRPC

/// `factorServices.*`: registering the factor services the MultiFactor router may call (an extension of the
/// contract, `docs/api-reference.md` "Factor services"). Project-scope admin keys only.
extension AdminMethods {
    struct RegisterFactorServiceParams: Codable, Sendable {
        /// `{endpoints, timeoutMs?, allowInsecureHttp?}`, read strictly by ``FactorServicesAdmin``.
        var factorService: JSONObject
        /// base64url of 32 bytes; generated when absent.
        var secret: String?
    }

    struct FactorServiceIDParams: Codable, Sendable {
        var factorId: String
    }

    struct UpdateFactorServiceParams: Codable, Sendable {
        var factorId: String
        var factorService: JSONObject
        var updateMask: String?
    }

    struct RotateFactorServiceSecretParams: Codable, Sendable {
        var factorId: String
        var secret: String?
    }

    struct FactorServiceRegistered: Codable, Sendable {
        var factorService: JSONObject
        var secret: String?
    }

    struct FactorServiceList: Codable, Sendable {
        var factorServices: [JSONObject]
    }

    struct FactorServiceSecret: Codable, Sendable {
        var secret: String
    }

    static func registerFactorServices(_ admin: FactorServicesAdmin, into table: inout RPCMethodTable) {
        table.register(
            "factorServices.register",
            summary:
                "Registers a factor service (asks it for its descriptor); its secret is shown only in this answer.",
            params: RegisterFactorServiceParams.self, result: FactorServiceRegistered.self
        ) { params, context in
            let registered = try await admin.register(
                params.factorService, secret: params.secret, actor: try context.actor("factorServices.register"))
            return FactorServiceRegistered(factorService: registered.factorService, secret: registered.secret)
        }
        table.register(
            "factorServices.get", summary: "Returns a registered factor service (never its secret).",
            params: FactorServiceIDParams.self, result: JSONObject.self
        ) { params, context in
            try await admin.get(factorID: params.factorId, actor: try context.admin())
        }
        table.register(
            "factorServices.list", summary: "Lists the registered factor services.", params: RPCNoParams.self,
            result: FactorServiceList.self
        ) { _, context in
            FactorServiceList(factorServices: try await admin.list(actor: try context.admin()))
        }
        table.register(
            "factorServices.update",
            summary:
                "Changes a factor service's endpoints or timeout (with an optional updateMask) and describes it again.",
            params: UpdateFactorServiceParams.self, result: JSONObject.self
        ) { params, context in
            try await admin.update(
                factorID: params.factorId, params.factorService, updateMask: params.updateMask,
                actor: try context.actor("factorServices.update"))
        }
        table.register(
            "factorServices.rotateSecret",
            summary: "Replaces a factor service's secret; the new one is shown only in this answer.",
            params: RotateFactorServiceSecretParams.self, result: FactorServiceSecret.self
        ) { params, context in
            FactorServiceSecret(
                secret: try await admin.rotateSecret(
                    factorID: params.factorId, secret: params.secret,
                    actor: try context.actor("factorServices.rotateSecret")))
        }
        table.register(
            "factorServices.delete", summary: "Removes a factor service; its enrolments stay, unusable.",
            params: FactorServiceIDParams.self, result: JSONObject.self
        ) { params, context in
            try await admin.delete(factorID: params.factorId, actor: try context.actor("factorServices.delete"))
            return JSONObject()
        }
    }
}
