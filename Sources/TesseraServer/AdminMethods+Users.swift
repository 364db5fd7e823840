import TesseraCore
import TesseraJSON
import TesseraRPC

/// `users.*` (API §5).
extension AdminMethods {
    struct CreateUserParams: Codable, Sendable {
        var tenantId: String?
        var email: String?
        var password: String?
        var emailVerified: Bool?
        var phoneNumber: String?
        var displayName: String?
        var disabled: Bool?
    }

    struct GetUserParams: Codable, Sendable {
        var tenantId: String?
        var localId: String?
        var email: String?
        var phoneNumber: String?
    }

    struct ListUsersParams: Codable, Sendable {
        var tenantId: String?
        var pageSize: Int?
        var pageToken: String?
    }

    struct UpdateUserParams: Codable, Sendable {
        var tenantId: String?
        var localId: String
        var email: String?
        var password: String?
        var emailVerified: Bool?
        var phoneNumber: String?
        var displayName: String?
        var disabled: Bool?
        /// The enrolments to keep, named by `mfaEnrollmentId`; the other members of each entry (as `users.get`
        /// returned them, whatever their factor) are ignored.
        var mfaInfo: [JSONObject]?
    }

    struct UserIDParams: Codable, Sendable {
        var tenantId: String?
        var localId: String
    }

    static func registerUsers(_ users: UsersAdmin, into table: inout RPCMethodTable) {
        table.register(
            "users.create", summary: "Creates a user.", params: CreateUserParams.self, result: User.self,
            hashesPassword: true
        ) { params, context in
            try await users.create(
                tenantID: params.tenantId,
                UserChanges(
                    email: params.email, password: params.password, emailVerified: params.emailVerified,
                    phoneNumber: params.phoneNumber, displayName: params.displayName, disabled: params.disabled),
                actor: try context.actor("users.create"))
        }
        table.register(
            "users.get", summary: "Returns a user named by localId, email or phoneNumber.", params: GetUserParams.self,
            result: User.self
        ) { params, context in
            let named: [UserLookup] = [
                params.localId.map(UserLookup.localID), params.email.map(UserLookup.email),
                params.phoneNumber.map(UserLookup.phoneNumber),
            ].compactMap { $0 }
            guard named.count == 1 else {
                throw AuthError(.invalidArgument, "give exactly one of localId, email and phoneNumber")
            }
            return try await users.get(tenantID: params.tenantId, named[0], actor: try context.admin())
        }
        table.register(
            "users.list", summary: "Lists users.", params: ListUsersParams.self, result: UsersAdmin.Page.self
        ) { params, context in
            try await users.list(
                tenantID: params.tenantId, pageSize: params.pageSize, pageToken: params.pageToken,
                actor: try context.admin())
        }
        table.register(
            "users.update", summary: "Changes a user; mfaInfo lists the enrolments to keep.",
            params: UpdateUserParams.self, result: User.self, hashesPassword: true
        ) { params, context in
            let kept = try params.mfaInfo.map { entries in
                try entries.map { entry in
                    guard let id = entry["mfaEnrollmentId"]?.stringValue else {
                        throw AuthError(
                            .invalidArgument,
                            "every mfaInfo entry needs its mfaEnrollmentId; enrolments are added by the user")
                    }
                    return id
                }
            }
            return try await users.update(
                tenantID: params.tenantId, localID: params.localId,
                UserChanges(
                    email: params.email, password: params.password, emailVerified: params.emailVerified,
                    phoneNumber: params.phoneNumber, displayName: params.displayName, disabled: params.disabled,
                    keptEnrollmentIDs: kept),
                actor: try context.actor("users.update"))
        }
        table.register(
            "users.delete", summary: "Deletes a user and everything they own.", params: UserIDParams.self,
            result: JSONObject.self
        ) { params, context in
            try await users.delete(
                tenantID: params.tenantId, localID: params.localId, actor: try context.actor("users.delete"))
            return JSONObject()
        }
        table.register(
            "users.revokeTokens", summary: "Revokes every token of a user.", params: UserIDParams.self,
            result: JSONObject.self
        ) { params, context in
            try await users.revokeTokens(
                tenantID: params.tenantId, localID: params.localId, actor: try context.actor("users.revokeTokens"))
            return JSONObject()
        }
    }
}
