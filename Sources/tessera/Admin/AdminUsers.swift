import ArgumentParser
import TesseraJSON

/// `tessera admin users …`: users of the project or of a tenant. Passwords are read from standard input, never
/// taken as arguments.
struct AdminUsers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage users.",
        subcommands: [Create.self, Get.self, List.self, Update.self, Delete.self, RevokeTokens.self]
    )

    /// `users create`: `users.create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a user.")

        @Option(help: "The tenant (default: the project level).")
        var tenant: String?

        @Option(help: "E-mail address.")
        var email: String?

        @Flag(help: "Read the password from standard input (prompted without echo on a terminal).")
        var passwordStdin = false

        @Flag(help: "Mark the e-mail address as verified.")
        var emailVerified = false

        @Option(help: "Phone number in E.164 form (+15555550100).")
        var phone: String?

        @Option(help: "Display name.")
        var displayName: String?

        @Flag(help: "Create the user disabled.")
        var disabled = false

        @OptionGroup var options: AdminOptions

        func run() async throws {
            var fields = AdminCall.UserFields(
                email: email, emailVerified: emailVerified ? true : nil, phoneNumber: phone, displayName: displayName,
                disabled: disabled ? true : nil)
            if passwordStdin { fields.password = try AdminUsers.readPassword() }
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(.createUser(tenantID: tenant, fields)))
            }
        }
    }

    /// `users get (--uid|--email|--phone) VALUE`: `users.get`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a user found by uid, e-mail or phone number.")

        @Option(help: "The tenant (default: the project level).")
        var tenant: String?

        @Option(help: "The user's localId.")
        var uid: String?

        @Option(help: "The user's e-mail address.")
        var email: String?

        @Option(help: "The user's phone number.")
        var phone: String?

        @OptionGroup var options: AdminOptions

        var lookup: AdminCall.UserLookup? {
            let given: [AdminCall.UserLookup] = [
                uid.map { .localID($0) }, email.map { .email($0) }, phone.map { .phoneNumber($0) },
            ].compactMap { $0 }
            return given.count == 1 ? given[0] : nil
        }

        func validate() throws {
            guard lookup != nil else { throw ValidationError("give exactly one of --uid, --email and --phone") }
        }

        func run() async throws {
            guard let lookup else { throw AdminUsageError("give exactly one of --uid, --email and --phone") }
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(.getUser(tenantID: tenant, lookup)))
            }
        }
    }

    /// `users list`: `users.list`, one page or all of them.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users.")

        @Option(help: "The tenant (default: the project level).")
        var tenant: String?

        @OptionGroup var page: AdminPageOptions
        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                let result = try await client.list(.users, page: page.page, all: page.all) { page in
                    AdminCall.listUsers(tenantID: tenant, page)
                }
                client.show(result, AdminListing.users.lines)
            }
        }
    }

    /// `users update UID`: `users.update`; `--remove-mfa` reads the user first and sends the enrolments to keep.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Update a user.")

        @Option(help: "The tenant (default: the project level).")
        var tenant: String?

        @Argument(help: "The user's localId.")
        var uid: String

        @Option(help: "New e-mail address.")
        var email: String?

        @Flag(help: "Read a new password from standard input (prompted without echo on a terminal).")
        var passwordStdin = false

        @Option(help: "true or false.")
        var emailVerified: Bool?

        @Option(help: "New phone number in E.164 form.")
        var phone: String?

        @Option(help: "New display name.")
        var displayName: String?

        @Option(help: "true or false.")
        var disabled: Bool?

        @Option(parsing: .upToNextOption, help: "MFA enrolment ids to remove (one or more).")
        var removeMfa: [String] = []

        @OptionGroup var options: AdminOptions

        func validate() throws {
            let changesSomething =
                email != nil || passwordStdin || emailVerified != nil || phone != nil
                || displayName != nil || disabled != nil || !removeMfa.isEmpty
            guard changesSomething else { throw ValidationError("nothing to update: give at least one field") }
        }

        func run() async throws {
            var fields = AdminCall.UserFields(
                email: email, emailVerified: emailVerified, phoneNumber: phone, displayName: displayName,
                disabled: disabled)
            if passwordStdin { fields.password = try AdminUsers.readPassword() }
            try await AdminClient.run(options) { client in
                if !removeMfa.isEmpty {
                    let user = try await client.call(.getUser(tenantID: tenant, .localID(uid)))
                    fields.mfaEnrollmentIDs = try AdminCall.enrollmentIDs(of: user, removing: removeMfa)
                }
                client.showObject(try await client.call(.updateUser(tenantID: tenant, localID: uid, fields)))
            }
        }
    }

    /// `users delete UID`: `users.delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user.")

        @Option(help: "The tenant (default: the project level).")
        var tenant: String?

        @Argument(help: "The user's localId.")
        var uid: String

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                let result = try await client.call(.deleteUser(tenantID: tenant, localID: uid))
                client.showDone(result, "deleted user \(uid)")
            }
        }
    }

    /// `users revoke-tokens UID`: `users.revokeTokens`.
    struct RevokeTokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-tokens", abstract: "Revoke every refresh and ID token of a user.")

        @Option(help: "The tenant (default: the project level).")
        var tenant: String?

        @Argument(help: "The user's localId.")
        var uid: String

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                let result = try await client.call(.revokeUserTokens(tenantID: tenant, localID: uid))
                client.showDone(result, "revoked every token of user \(uid)")
            }
        }
    }

    /// The password on standard input.
    static func readPassword() throws(AdminUsageError) -> String {
        try AdminInput.password(fromInput: AdminInput.readStandardInput(prompt: "Password: "))
    }
}
