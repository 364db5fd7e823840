import PhoneSignIn
import TesseraCore
import TesseraJSON
import TesseraRPC

/// Phone sign-in on the public listener (API §3): `accounts.sendVerificationCode` and
/// `accounts.signInWithPhoneNumber`.
enum PhoneSignInMethods {
    struct SendParams: Codable, Sendable, RPCParamsErrorMapping {
        var phoneNumber: String
        var tenantId: String?
        var appVerification: JSONObject?
        var languageCode: String?

        static func rpcError(for error: JSONDecodingError) -> RPCError? {
            MissingCredential.map(error, field: "phoneNumber", reason: "MISSING_PHONE_NUMBER")
        }
    }

    struct SendResult: Codable, Sendable {
        var sessionInfo: String
    }

    struct SignInParams: Codable, Sendable, RPCParamsErrorMapping {
        var sessionInfo: String
        var code: String
        var tenantId: String?

        static func rpcError(for error: JSONDecodingError) -> RPCError? {
            MissingCredential.map(error, field: "sessionInfo", reason: "MISSING_SESSION_INFO")
                ?? MissingCredential.map(error, field: "code", reason: "MISSING_CODE")
        }
    }

    /// Registers the methods on `table`.
    static func register(_ phoneSignIn: PhoneSignIn, into table: inout RPCMethodTable) {
        table.register(
            "accounts.sendVerificationCode", summary: "Sends a sign-in code by SMS; returns the sessionInfo.",
            params: SendParams.self, result: SendResult.self
        ) { params, context in
            SendResult(
                sessionInfo: try await phoneSignIn.sendVerificationCode(
                    phoneNumber: params.phoneNumber, tenantID: params.tenantId,
                    appVerification: params.appVerification, languageCode: params.languageCode,
                    clientAddress: context.clientAddress))
        }
        table.register(
            "accounts.signInWithPhoneNumber",
            summary: "Signs in (or up) with the SMS code of a sessionInfo; returns tokens, phoneNumber and isNewUser.",
            params: SignInParams.self, result: TokenResult.self
        ) { params, _ in
            try await phoneSignIn.signIn(sessionInfo: params.sessionInfo, code: params.code, tenantID: params.tenantId)
        }
    }
}
