import ArgumentParser

/// `tessera admin`: a JSON-RPC client of the admin listener (API §1, §5).
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Admin CLI: a JSON-RPC client of the admin listener.",
        discussion: """
            The admin key comes from the TESSERA_ADMIN_KEY environment variable or from --key-file, never from \
            an option, so it stays out of shell history and ps. A JSON-RPC error or an unreachable listener \
            exits with status 1, a usage error with status 2.
            """,
        subcommands: [
            AdminConfig.self, AdminTenants.self, AdminKeys.self, AdminUsers.self, AdminClients.self,
            AdminAudit.self, AdminFactorServices.self,
        ]
    )
}
