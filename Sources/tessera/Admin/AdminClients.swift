import ArgumentParser
import TesseraJSON

/// `tessera admin clients …`: OAuth clients of the project or of a tenant (API §5 `oauthClients.*`). Secrets are
/// printed once, by `create` and `rotate-secret`, and never accepted as arguments.
struct AdminClients: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients",
        abstract: "Manage OAuth clients.",
        subcommands: [Create.self, Get.self, List.self, Update.self, Delete.self, RotateSecret.self]
    )

    /// The client fields as options, shared by `create` and `update`.
    struct FieldOptions: ParsableArguments {
        @Option(help: "The client's name, shown on the login pages.")
        var name: String?

        @Option(name: .customLong("redirect-uri"), help: "A redirect URI (repeat for several).")
        var redirectURIs: [String] = []

        @Option(
            name: .customLong("post-logout-redirect-uri"),
            help: "Where /oauth2/logout may send the browser afterwards (repeat for several).")
        var postLogoutRedirectURIs: [String] = []

        @Option(
            name: .customLong("grant-type"), help: "authorization_code, refresh_token or client_credentials (repeat).")
        var grantTypes: [String] = []

        @Option(name: .customLong("scope"), help: "A scope the client may ask for (repeat).")
        var scopes: [String] = []

        @Option(name: .customLong("default-scope"), help: "A scope granted when a request names none (repeat).")
        var defaultScopes: [String] = []

        @Option(name: .customLong("access-token-ttl"), help: "Access token lifetime in seconds (60–86400).")
        var accessTokenTTL: Int?

        @Option(name: .customLong("refresh-token-ttl"), help: "Refresh token lifetime in seconds (3600–31536000).")
        var refreshTokenTTL: Int?

        /// The fields given, `type` aside.
        var fields: AdminCall.ClientFields {
            AdminCall.ClientFields(
                clientName: name, redirectURIs: redirectURIs, postLogoutRedirectURIs: postLogoutRedirectURIs,
                grantTypes: grantTypes, scopes: scopes,
                defaultScopes: defaultScopes, accessTokenTTL: accessTokenTTL, refreshTokenTTL: refreshTokenTTL)
        }
    }

    /// `clients create`: `oauthClients.create`; a confidential client's secret is printed once.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an OAuth client (a confidential client's secret is shown once).",
            discussion: "Options are written over --body; omitted fields take the server's defaults.")

        @Option(help: "The tenant (default: the project level).")
        var tenant: String?

        @Option(help: "public (native and browser apps, PKCE only) or confidential (has a secret).")
        var type: String?

        @OptionGroup var fieldOptions: FieldOptions

        @Option(help: "Further OAuthClient fields as JSON, or @FILE.")
        var body: String?

        @OptionGroup var options: AdminOptions

        func validate() throws {
            guard body != nil || (fieldOptions.name != nil && type != nil) else {
                throw ValidationError("give --name and --type (or a --body with clientName and type)")
            }
        }

        func run() async throws {
            var fields = fieldOptions.fields
            fields.type = type
            let registered = fields.applied(to: try body.map(AdminInput.body) ?? JSONObject())
            try await AdminClient.run(options) { client in
                let created = try await client.call(.createClient(tenantID: tenant, registered))
                client.showObject(created)
                if created["clientSecret"] != nil {
                    FileHandleStandardError.write("tessera: store the client secret now: it cannot be shown again\n")
                }
            }
        }
    }

    /// `clients get CLIENT_ID`: `oauthClients.get`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an OAuth client (never its secret).")

        @Argument(help: "The clientId.")
        var clientID: String

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(.getClient(clientID)))
            }
        }
    }

    /// `clients list`: `oauthClients.list`, one page or all of them.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List OAuth clients.")

        @Option(help: "The tenant (default: the project level).")
        var tenant: String?

        @OptionGroup var page: AdminPageOptions
        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                let result = try await client.list(.clients, page: page.page, all: page.all) { page in
                    AdminCall.listClients(tenantID: tenant, page)
                }
                client.show(result, AdminListing.clients.lines)
            }
        }
    }

    /// `clients update CLIENT_ID`: `oauthClients.update`, either with field options (only those fields change)
    /// or with a raw `--body` and optional `--mask`.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Update an OAuth client.",
            discussion: """
                Field options change only the fields given. With --body instead, --mask names the fields to \
                change; without --mask every settable field is replaced by the body (omitted fields take \
                defaults). The type of a client never changes.
                """)

        @Argument(help: "The clientId.")
        var clientID: String

        @OptionGroup var fieldOptions: FieldOptions

        @Option(help: "An OAuthClient as JSON, or @FILE (instead of field options).")
        var body: String?

        @Option(help: "Comma-separated fields to change with --body (updateMask), e.g. clientName,redirectUris.")
        var mask: String?

        @OptionGroup var options: AdminOptions

        func validate() throws {
            let fields = fieldOptions.fields
            if body == nil {
                guard !fields.isEmpty else { throw ValidationError("nothing to update: give field options or --body") }
                guard mask == nil else { throw ValidationError("--mask goes with --body") }
            } else {
                guard fields.isEmpty else { throw ValidationError("give either field options or --body, not both") }
            }
        }

        func run() async throws {
            let call: AdminCall
            if let body {
                call = .updateClient(clientID, try AdminInput.body(body), mask: try AdminInput.mask(mask))
            } else {
                let fields = fieldOptions.fields
                call = .updateClient(clientID, fields.applied(to: JSONObject()), mask: fields.mask)
            }
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(call))
            }
        }
    }

    /// `clients delete CLIENT_ID --yes`: `oauthClients.delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an OAuth client with every code and token it holds.")

        @Argument(help: "The clientId.")
        var clientID: String

        @Flag(help: "Confirm the deletion: every user signed in to the client is signed out.")
        var yes = false

        @OptionGroup var options: AdminOptions

        func run() async throws {
            guard yes else {
                throw AdminUsageError(
                    "deleting client \(clientID) also revokes every token it holds; add --yes to confirm")
            }
            try await AdminClient.run(options) { client in
                client.showDone(try await client.call(.deleteClient(clientID)), "deleted OAuth client \(clientID)")
            }
        }
    }

    /// `clients rotate-secret CLIENT_ID`: `oauthClients.rotateSecret`; the new secret is printed once.
    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret",
            abstract: "Give a confidential client a new secret (shown once); the old one stops working at once.")

        @Argument(help: "The clientId.")
        var clientID: String

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(.rotateClientSecret(clientID)))
                FileHandleStandardError.write("tessera: store the client secret now: it cannot be shown again\n")
            }
        }
    }
}
