import MultiFactor
import TesseraCore
import TesseraJSON
import TesseraRPC

/// The account and token methods of the public listener (API §3).
enum AccountMethods {
    struct SignUpParams: Codable, Sendable {
        var email: String
        var password: String
        var displayName: String?
        var tenantId: String?
    }

    struct SignInParams: Codable, Sendable {
        var email: String
        var password: String
        var tenantId: String?
    }

    /// `VERIFY_EMAIL` takes the signed-in user's `idToken`, `PASSWORD_RESET` an `email`.
    struct SendOobCodeParams: Codable, Sendable {
        var requestType: String
        var idToken: String?
        var email: String?
        var tenantId: String?
        /// The language of the mail (`en`, `ja`, `ru`, `fr`, or a tag of one); else the tenant's default.
        var languageCode: String?
    }

    struct ResetPasswordParams: Codable, Sendable {
        var oobCode: String
        var newPassword: String
        var tenantId: String?
    }

    struct SendOobCodeResult: Codable, Sendable {
        var email: String
    }

    struct UpdateParams: Codable, Sendable {
        var oobCode: String
        var tenantId: String?
    }

    struct UpdateResult: Codable, Sendable {
        var localId: String
        var email: String
        var emailVerified: Bool
    }

    struct IDTokenParams: Codable, Sendable, RPCParamsErrorMapping {
        var idToken: String
        var tenantId: String?

        static func rpcError(for error: JSONDecodingError) -> RPCError? {
            MissingCredential.map(error, field: "idToken", reason: "MISSING_ID_TOKEN")
        }
    }

    struct LookupResult: Codable, Sendable {
        var user: User
    }

    struct RefreshParams: Codable, Sendable {
        var refreshToken: String
        var tenantId: String?
    }

    /// Registers the methods on `table`.
    static func register(_ accounts: Accounts, signIn: FirstFactorSignIn, into table: inout RPCMethodTable) {
        table.register(
            "accounts.signUp", summary: "Creates a password account and signs it in.", params: SignUpParams.self,
            result: TokenResult.self, hashesPassword: true
        ) { params, context in
            try await signIn.signUp(
                email: params.email, password: params.password, displayName: params.displayName,
                tenantID: params.tenantId, clientAddress: context.clientAddress)
        }
        table.register(
            "accounts.signInWithPassword", summary: "Signs in with e-mail and password; may answer an MFA challenge.",
            params: SignInParams.self, result: SignInOutcome.self, hashesPassword: true
        ) { params, context in
            try await signIn.signInWithPassword(
                email: params.email, password: params.password, tenantID: params.tenantId,
                clientAddress: context.clientAddress)
        }
        table.register(
            "accounts.sendOobCode",
            summary: "Mails a link: to verify the signed-in user's address (VERIFY_EMAIL), or to reset a password.",
            params: SendOobCodeParams.self, result: SendOobCodeResult.self
        ) { params, context in
            switch params.requestType {
            case "VERIFY_EMAIL":
                guard let idToken = params.idToken, !idToken.isEmpty else {
                    throw RPCError(reason: "MISSING_ID_TOKEN", status: .invalidArgument, detail: "idToken is required")
                }
                return SendOobCodeResult(
                    email: try await accounts.sendVerificationEmail(
                        idToken: idToken, tenantID: params.tenantId, languageCode: params.languageCode))
            case "PASSWORD_RESET":
                guard let email = params.email, !email.isEmpty else {
                    throw AuthError(.invalidEmail, "email is required for PASSWORD_RESET.")
                }
                return SendOobCodeResult(
                    email: try await accounts.sendPasswordReset(
                        email: email, tenantID: params.tenantId, clientAddress: context.clientAddress,
                        languageCode: params.languageCode))
            default:
                throw AuthError(.invalidArgument, "requestType must be VERIFY_EMAIL or PASSWORD_RESET")
            }
        }
        table.register(
            "accounts.resetPassword", summary: "Sets a new password with the oobCode of a password-reset mail.",
            params: ResetPasswordParams.self, result: SendOobCodeResult.self, hashesPassword: true
        ) { params, _ in
            SendOobCodeResult(
                email: try await accounts.resetPassword(
                    oobCode: params.oobCode, newPassword: params.newPassword, tenantID: params.tenantId))
        }
        table.register(
            "accounts.update", summary: "Confirms an e-mail address with the oobCode of the verification mail.",
            params: UpdateParams.self, result: UpdateResult.self
        ) { params, _ in
            let confirmed = try await accounts.confirmEmail(oobCode: params.oobCode, tenantID: params.tenantId)
            return UpdateResult(localId: confirmed.userID, email: confirmed.email, emailVerified: true)
        }
        table.register(
            "accounts.lookup", summary: "Returns the signed-in user.", params: IDTokenParams.self,
            result: LookupResult.self
        ) { params, _ in
            LookupResult(user: try await signIn.lookup(idToken: params.idToken, tenantID: params.tenantId))
        }
        table.register(
            "accounts.delete", summary: "Deletes the signed-in user.", params: IDTokenParams.self,
            result: JSONObject.self
        ) { params, _ in
            try await accounts.delete(idToken: params.idToken, tenantID: params.tenantId)
            return JSONObject()
        }
        table.register(
            "accounts.signOut", summary: "Ends the sign-in an ID token belongs to (its refresh and ID tokens).",
            params: IDTokenParams.self, result: JSONObject.self
        ) { params, _ in
            try await accounts.signOut(idToken: params.idToken, tenantID: params.tenantId)
            return JSONObject()
        }
        table.register(
            "token.refresh", summary: "Exchanges a refresh token for new tokens (rotation; reuse revokes the family).",
            params: RefreshParams.self, result: TokenResult.self
        ) { params, _ in
            try await accounts.refresh(refreshToken: params.refreshToken, tenantID: params.tenantId)
        }
    }
}
