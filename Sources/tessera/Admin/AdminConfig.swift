import ArgumentParser
import TesseraJSON

/// `tessera admin config …`: the project configuration and multi-factor settings.
struct AdminConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Read and change the project configuration.",
        subcommands: [Get.self, SetMFA.self, Update.self]
    )

    /// `config get`: `projects.getConfig`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the project configuration.")

        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(.getConfig()))
            }
        }
    }

    /// `config set-mfa`: reads the current MFA config, then writes a whole new one (`projects.updateConfig` with
    /// mask `mfa`, or `tenants.update` with mask `mfaConfig`).
    struct SetMFA: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-mfa",
            abstract: "Set the multi-factor configuration of the project or of a tenant.",
            discussion: """
                Provider flags that are not given keep what the current configuration has. \
                --totp-adjacent-intervals without --totp or --no-totp enables TOTP. Factor services that are \
                not named keep their entries.
                """
        )

        @Option(help: "DISABLED, ENABLED or MANDATORY.")
        var state: MultiFactorSettings.State

        @Flag(inversion: .prefixedNo, help: "Enable or disable SMS codes (default: keep).")
        var phoneSms: Bool?

        @Flag(inversion: .prefixedNo, help: "Enable or disable TOTP (default: keep).")
        var totp: Bool?

        @Option(help: "Time steps accepted on either side of now for TOTP codes, 0 to 10 (enables TOTP).")
        var totpAdjacentIntervals: Int?

        @Option(name: .customLong("factor-service"), help: "Enable a registered factor service by id (repeatable).")
        var enabledFactorServices: [String] = []

        @Option(name: .customLong("no-factor-service"), help: "Disable a factor service by id (repeatable).")
        var disabledFactorServices: [String] = []

        @Option(help: "Change this tenant's mfaConfig instead of the project's mfa.")
        var tenant: String?

        @OptionGroup var options: AdminOptions

        var settings: MultiFactorSettings {
            MultiFactorSettings(
                state: state, phoneSMS: phoneSms, totp: totp, adjacentIntervals: totpAdjacentIntervals,
                enabledFactorServices: enabledFactorServices, disabledFactorServices: disabledFactorServices)
        }

        func validate() throws {
            try settings.validate()
        }

        func run() async throws {
            let settings = settings
            try await AdminClient.run(options) { client in
                if let tenant {
                    let current = try await client.call(.getTenant(tenant))
                    let mfa = settings.config(current: MultiFactorSettings.currentConfig(ofTenant: current))
                    client.showObject(try await client.call(.updateTenantMFA(tenant, mfa)))
                } else {
                    let current = try await client.call(.getConfig())
                    let mfa = settings.config(current: current["mfa"])
                    client.showObject(try await client.call(.updateProjectMFA(mfa)))
                }
            }
        }
    }

    /// `config update`: `projects.updateConfig` with a raw ProjectConfig.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Update the project configuration with a raw ProjectConfig.",
            discussion: "Without --mask every settable field is replaced by the body (omitted fields take defaults)."
        )

        @Option(help: "The ProjectConfig as JSON, or @FILE to read it from a file.")
        var body: String

        @Option(help: "Comma-separated dotted field paths to change (updateMask), e.g. mfa.state,smsDailyQuota.")
        var mask: String?

        @OptionGroup var options: AdminOptions

        func run() async throws {
            let config = try AdminInput.body(body)
            let mask = try AdminInput.mask(mask)
            try await AdminClient.run(options) { client in
                client.showObject(try await client.call(.updateConfig(config, mask: mask)))
            }
        }
    }
}
