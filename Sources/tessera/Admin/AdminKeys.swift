import ArgumentParser
import TesseraJSON

/// `tessera admin keys …`: admin keys and the token signing key.
struct AdminKeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage admin keys and rotate the token signing key.",
        subcommands: [Create.self, List.self, Revoke.self, RotateSigning.self]
    )

    /// `keys create`: `adminKeys.create`; the key is printed once.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an admin key (shown once).")

        @Option(help: "What the key is for.")
        var displayName: String

        @Option(help: "project, or tenant:ID for a key limited to one tenant.")
        var scope: String

        @OptionGroup var options: AdminOptions

        func run() async throws {
            let call = try AdminCall.createAdminKey(displayName: displayName, scope: scope)
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(call))
                FileHandleStandardError.write("tessera: store the key now: it cannot be shown again\n")
            }
        }
    }

    /// `keys list`: `adminKeys.list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List admin keys (never the keys themselves).")

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                client.show(try await client.call(.listAdminKeys()), AdminListing.adminKeys.lines)
            }
        }
    }

    /// `keys revoke KEY_ID`: `adminKeys.revoke`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an admin key.")

        @Argument(help: "The key id (keyId), not the key.")
        var keyID: String

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                client.showDone(try await client.call(.revokeAdminKey(keyID)), "revoked admin key \(keyID)")
            }
        }
    }

    /// `keys rotate-signing`: `keys.rotate`.
    struct RotateSigning: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-signing",
            abstract: "Start signing tokens with a new key; old keys stay in the JWKS until their tokens expire.")

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(.rotateSigningKey()))
            }
        }
    }
}
