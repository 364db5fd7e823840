import ArgumentParser

/// `tessera admin audit …`: the audit log of admin changes.
struct AdminAudit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Read the audit log.",
        subcommands: [List.self]
    )

    /// `audit list`: `auditLog.list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List audit events.")

        @Option(help: "Only this tenant's events.")
        var tenant: String?

        @OptionGroup var page: AdminPageOptions
        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                let result = try await client.list(.auditEvents, page: page.page, all: page.all) { page in
                    AdminCall.listAuditEvents(tenantID: tenant, page)
                }
                client.show(result, AdminListing.auditEvents.lines)
            }
        }
    }
}
