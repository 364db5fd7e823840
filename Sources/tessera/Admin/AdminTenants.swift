import ArgumentParser
import TesseraJSON

/// `tessera admin tenants …`: create, read, list, update and delete tenants.
struct AdminTenants: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants",
        abstract: "Manage tenants.",
        subcommands: [Create.self, Get.self, List.self, Update.self, Delete.self]
    )

    /// `tenants create`: `tenants.create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a tenant.")

        @Option(help: "The tenant's display name.")
        var displayName: String

        @Option(help: "Further Tenant fields as JSON, or @FILE (the display name above wins).")
        var body: String?

        @OptionGroup var options: AdminOptions

        func run() async throws {
            let tenant = try body.map(AdminInput.body) ?? JSONObject()
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(.createTenant(displayName: displayName, body: tenant)))
            }
        }
    }

    /// `tenants get ID`: `tenants.get`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a tenant and its effective MFA config.")

        @Argument(help: "The tenant id.")
        var tenantID: String

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(.getTenant(tenantID)))
            }
        }
    }

    /// `tenants list`: `tenants.list`, one page or all of them.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tenants.")

        @OptionGroup var page: AdminPageOptions
        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                let result = try await client.list(.tenants, page: page.page, all: page.all, AdminCall.listTenants)
                client.show(result, AdminListing.tenants.lines)
            }
        }
    }

    /// `tenants update ID`: `tenants.update`.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Update a tenant with a raw Tenant.",
            discussion: "Without --mask every settable field is replaced by the body (omitted fields take defaults)."
        )

        @Argument(help: "The tenant id.")
        var tenantID: String

        @Option(help: "The Tenant as JSON, or @FILE to read it from a file.")
        var body: String

        @Option(help: "Comma-separated dotted field paths to change (updateMask), e.g. displayName,mfaConfig.state.")
        var mask: String?

        @OptionGroup var options: AdminOptions

        func run() async throws {
            let tenant = try AdminInput.body(body)
            let mask = try AdminInput.mask(mask)
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(.updateTenant(tenantID, tenant, mask: mask)))
            }
        }
    }

    /// `tenants delete ID --yes`: `tenants.delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a tenant with its users, OAuth clients and factors.")

        @Argument(help: "The tenant id.")
        var tenantID: String

        @Flag(help: "Confirm the deletion: every user of the tenant is deleted with it.")
        var yes = false

        @OptionGroup var options: AdminOptions

        func run() async throws {
            guard yes else {
                let consequence = "also deletes its users, OAuth clients and factors"
                throw AdminUsageError("deleting tenant \(tenantID) \(consequence); add --yes to confirm")
            }
            try await AdminClient.run(options) { client in
                client.showDone(try await client.call(.deleteTenant(tenantID)), "deleted tenant \(tenantID)")
            }
        }
    }
}
