import MultiFactor
import TesseraCore
import TesseraJSON
import TesseraRPC

/// The multi-factor methods of the public listener (API §4). Their params carry one member per factor plugin,
/// so they are read by the parsers of the factors offered now (built-in ones and registered factor services) rather
/// than by fixed types; `mfaEnrollment.withdraw` has fixed params. `rpc.discover` lists the built-in factors'
/// members; a factor service's members are in its descriptor (`factorServices.get`).
enum MultiFactorMethods {
    struct WithdrawParams: Codable, Sendable, RPCParamsErrorMapping {
        var idToken: String
        var mfaEnrollmentId: String
        var tenantId: String?

        static func rpcError(for error: JSONDecodingError) -> RPCError? {
            MissingCredential.map(error, field: "idToken", reason: "MISSING_ID_TOKEN")
                ?? MissingCredential.map(error, field: "mfaEnrollmentId", reason: "MISSING_MFA_ENROLLMENT_ID")
        }
    }

    /// Registers the methods on `table`.
    static func register(_ router: MultiFactorRouter, into table: inout RPCMethodTable) {
        let registry = router.registry
        let tokenResult = JSONSchema.of(TokenResult.self)
        table.register(
            "mfaEnrollment.start", summary: "Starts enrolling a second factor for the signed-in user.",
            paramsSchema: registry.enrollmentStartParams, resultSchema: registry.enrollmentStartResult
        ) { params, context in
            var request = try await router.factors().enrollmentStart(params)
            request.clientAddress = context.clientAddress
            return .object(try await router.startEnrollment(request).result)
        }
        table.register(
            "mfaEnrollment.finalize", summary: "Finishes an enrolment with the factor's code; returns new tokens.",
            paramsSchema: registry.enrollmentFinalizeParams, resultSchema: tokenResult
        ) { params, _ in
            let request = try await router.factors().enrollmentFinalize(params)
            return try JSONValueEncoder().encode(try await router.finalizeEnrollment(request))
        }
        table.register(
            "mfaEnrollment.withdraw", summary: "Removes a second factor and revokes every token of the user.",
            params: WithdrawParams.self, result: JSONObject.self
        ) { params, _ in
            try await router.withdrawEnrollment(
                idToken: params.idToken, enrollmentID: params.mfaEnrollmentId, tenantID: params.tenantId)
            return JSONObject()
        }
        table.register(
            "mfaSignIn.start", summary: "Sends the challenge of a second factor that has a start step (SMS).",
            paramsSchema: registry.signInStartParams, resultSchema: registry.signInStartResult
        ) { params, context in
            var request = try await router.factors().signInStart(params)
            request.clientAddress = context.clientAddress
            return .object(try await router.startSignIn(request))
        }
        table.register(
            "mfaSignIn.finalize", summary: "Completes a sign-in with a second factor's code; returns tokens.",
            paramsSchema: registry.signInFinalizeParams, resultSchema: tokenResult
        ) { params, _ in
            let request = try await router.factors().signInFinalize(params)
            return try JSONValueEncoder().encode(try await router.finalizeSignIn(request))
        }
    }
}
