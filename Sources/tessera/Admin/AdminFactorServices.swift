import ArgumentParser
import FoundationEssentials
import TesseraJSON

/// `tessera admin factor-services …`: the factor services the MultiFactor router may call
/// (`docs/factor-protocol.md`, `docs/admin-guide.md`).
struct AdminFactorServices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "factor-services",
        abstract: "Register and manage factor services (second factors that run as their own services).",
        subcommands: [Register.self, List.self, Get.self, Update.self, RotateSecret.self, Delete.self]
    )

    /// The settings `register` and `update` send.
    struct Settings: ParsableArguments {
        @Option(name: .customLong("endpoint"), help: "An endpoint URL (repeatable): https, or http to loopback.")
        var endpoints: [String] = []

        @Option(help: "How long one call may take, 100 to 10000 ms (default 2000).")
        var timeoutMs: Int?

        @Flag(help: "Allow plain http to hosts other than loopback (a private network you trust).")
        var allowInsecureHttp = false

        /// The `factorService` object; with `onlyGiven`, members whose option was not given are left out.
        func object(onlyGiven: Bool) throws(AdminUsageError) -> JSONObject {
            if let timeoutMs, !(100...10_000).contains(timeoutMs) {
                throw AdminUsageError("--timeout-ms must be from 100 to 10000")
            }
            var object = JSONObject()
            if !endpoints.isEmpty || !onlyGiven { object["endpoints"] = .array(endpoints.map { .string($0) }) }
            if let timeoutMs { object["timeoutMs"] = .integer(Int64(timeoutMs)) }
            if allowInsecureHttp || !onlyGiven { object["allowInsecureHttp"] = .bool(allowInsecureHttp) }
            return object
        }
    }

    /// The secret to give the service, read from a file (never an option, so it stays out of shell history).
    struct SecretFile: ParsableArguments {
        @Option(help: "A file holding the secret to use (base64url of 32 bytes); default: Tessera makes one.")
        var secretFile: String?

        func secret() throws(AdminUsageError) -> String? {
            guard let secretFile else { return nil }
            guard let data = FileManager.default.contents(atPath: secretFile) else {
                throw AdminUsageError("cannot read --secret-file \(secretFile)")
            }
            return String(decoding: data, as: UTF8.self).filter { !$0.isWhitespace }
        }
    }

    /// `factor-services register --endpoint URL …`: `factorServices.register`; the secret is printed once.
    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a factor service: Tessera asks it for its descriptor (factor.describe).")

        @OptionGroup var settings: Settings
        @OptionGroup var secret: SecretFile
        @OptionGroup var options: AdminOptions

        func validate() throws {
            guard !settings.endpoints.isEmpty else { throw AdminUsageError("at least one --endpoint is required") }
        }

        func run() async throws {
            var params: JSONObject = ["factorService": .object(try settings.object(onlyGiven: false))]
            if let given = try secret.secret() { params["secret"] = .string(given) }
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(AdminCall("factorServices.register", params)))
                FileHandleStandardError.write("tessera: give the service its secret now: it cannot be shown again\n")
            }
        }
    }

    /// `factor-services list`: `factorServices.list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the registered factor services.")

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                client.show(try await client.call(AdminCall("factorServices.list")), AdminListing.factorServices.lines)
            }
        }
    }

    /// `factor-services get ID`: `factorServices.get`, with the descriptor.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a factor service and its descriptor.")

        @Argument(help: "The factor id.")
        var factorID: String

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                client.showObject(
                    try await client.call(AdminCall("factorServices.get", ["factorId": .string(factorID)])))
            }
        }
    }

    /// `factor-services update ID …`: `factorServices.update` of the settings given (an update mask of them).
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a factor service's endpoints or timeout; Tessera asks it for its descriptor again.")

        @Argument(help: "The factor id.")
        var factorID: String

        @OptionGroup var settings: Settings
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let object = try settings.object(onlyGiven: true)
            let mask = object.keys.joined(separator: ",")
            try await AdminClient.run(options) { client in
                client.showObject(
                    try await client.call(
                        AdminCall(
                            "factorServices.update",
                            [
                                "factorId": .string(factorID), "factorService": .object(object),
                                "updateMask": .string(mask),
                            ]
                        )))
            }
        }
    }

    /// `factor-services rotate-secret ID`: `factorServices.rotateSecret`; the new secret is printed once.
    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret",
            abstract: "Replace a factor service's secret; calls fail until the service has the new one.")

        @Argument(help: "The factor id.")
        var factorID: String

        @OptionGroup var secret: SecretFile
        @OptionGroup var options: AdminOptions

        func run() async throws {
            var params: JSONObject = ["factorId": .string(factorID)]
            if let given = try secret.secret() { params["secret"] = .string(given) }
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(AdminCall("factorServices.rotateSecret", params)))
            }
        }
    }

    /// `factor-services delete ID`: `factorServices.delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a factor service; its users' enrolments stay, unusable until it is registered again.")

        @Argument(help: "The factor id.")
        var factorID: String

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                client.showDone(
                    try await client.call(AdminCall("factorServices.delete", ["factorId": .string(factorID)])),
                    "removed factor service \(factorID)")
            }
        }
    }
}
