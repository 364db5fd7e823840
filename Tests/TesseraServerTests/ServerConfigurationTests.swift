import TesseraHTTP
import TesseraServer
import Testing

@Suite struct ServerConfigurationTests {
    private func resolve(
        _ edit: (inout ServerConfiguration.Options) -> Void = { _ in }, environment: [String: String] = [:]
    ) throws(ServerConfiguration.Invalid) -> ServerConfiguration {
        var options = ServerConfiguration.Options()
        options.databaseURL = "postgresql:///tessera"
        edit(&options)
        return try ServerConfiguration.resolve(options, environment: environment, processorCount: 2)
    }

    @Test func defaultsFollowTheContract() throws {
        let configuration = try resolve()
        #expect(configuration.publicListen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(configuration.adminListen == ListenAddress(host: "127.0.0.1", port: 8081))
        #expect(configuration.issuer == "http://127.0.0.1:8080")
        #expect(configuration.loops == 2)
        #expect(configuration.appVerification == .enforced)
        #expect(configuration.migrateAtStart)
        #expect(configuration.trustedProxies.isEmpty)
        #expect(configuration.bootstrapAdminKey == nil)
        #expect(configuration.maxConnections == 10_000 && configuration.maxConnectionsPerClient == 256)
        #expect(configuration.maxPasswordAttemptsPerClient == 600)
    }

    @Test func withoutAMasterKeyOnlyALoopbackIssuerOrDevStarts() throws {
        // Before, any issuer started without a key: secrets sealed with a public key, codes in the log.
        for issuer in ["https://auth.example.com", "http://10.0.0.5:8080", "http://127.0.0.1.example.com"] {
            #expect(throws: ServerConfiguration.Invalid.self) { try resolve({ $0.issuer = issuer }) }
            #expect(
                try resolve({
                    $0.issuer = issuer
                    $0.dev = true
                }).developmentMode)
            #expect(try resolve({ $0.issuer = issuer }, environment: ["TESSERA_DEV": "1"]).developmentMode)
            #expect(
                try resolve({
                    $0.issuer = issuer
                    $0.masterKeyFile = "/k"
                }).masterKeyFile == "/k")
        }
        for issuer in ["http://127.0.0.1:8080", "http://localhost:8080/auth", "http://[::1]:9000", "http://127.9.9.9"] {
            #expect(try !resolve({ $0.issuer = issuer }).developmentMode)
        }
    }

    @Test func previousMasterKeysComeFromOptionsOrTheEnvironmentAndNeedACurrentOne() throws {
        #expect(try resolve().previousMasterKeyFiles.isEmpty)
        let fromOptions = try resolve({
            $0.masterKeyFile = "/new"
            $0.previousMasterKeyFiles = ["/old", "/older"]
        })
        #expect(fromOptions.previousMasterKeyFiles == ["/old", "/older"])
        let fromEnvironment = try resolve(
            environment: ["TESSERA_MASTER_KEY_FILE": "/new", "TESSERA_PREVIOUS_MASTER_KEY_FILES": "/old, /older,"])
        #expect(fromEnvironment.previousMasterKeyFiles == ["/old", "/older"])
        #expect(throws: ServerConfiguration.Invalid.self) { try resolve({ $0.previousMasterKeyFiles = ["/old"] }) }
        #expect(throws: ServerConfiguration.Invalid.self) {
            try resolve(environment: ["TESSERA_PREVIOUS_MASTER_KEY_FILES": "/old"])
        }
    }

    @Test func theRetentionIntervalIsSecondsFromZeroToADay() throws {
        #expect(try resolve().retentionInterval == 60)
        #expect(try resolve({ $0.retentionInterval = "0" }).retentionInterval == 0)
        #expect(try resolve(environment: ["TESSERA_RETENTION_INTERVAL": "300"]).retentionInterval == 300)
        for bad in ["-1", "86401", "soon", "1.5", ""] where !bad.isEmpty {
            #expect(throws: ServerConfiguration.Invalid.self) { try resolve({ $0.retentionInterval = bad }) }
        }
    }

    @Test func connectionLimitsComeFromOptionsOrTheEnvironmentAndMustBeCounts() throws {
        let environment = ["TESSERA_MAX_CONNECTIONS": "500", "TESSERA_MAX_CONNECTIONS_PER_CLIENT": "20"]
        let fromEnvironment = try resolve(environment: environment)
        #expect(fromEnvironment.maxConnections == 500 && fromEnvironment.maxConnectionsPerClient == 20)
        let fromOptions = try resolve({ $0.maxConnectionsPerClient = "8" }, environment: environment)
        #expect(fromOptions.maxConnectionsPerClient == 8)
        for bad in ["0", "-1", "many", "1000001", "1.5"] {
            #expect(throws: ServerConfiguration.Invalid.self) { try resolve({ $0.maxConnections = bad }) }
            #expect(throws: ServerConfiguration.Invalid.self) { try resolve({ $0.maxConnectionsPerClient = bad }) }
            #expect(throws: ServerConfiguration.Invalid.self) { try resolve({ $0.maxPasswordAttemptsPerClient = bad }) }
        }
    }

    @Test func optionsBeatTheEnvironmentWhichBeatsDefaults() throws {
        let environment = [
            "TESSERA_DATABASE_URL": "postgresql:///from-env", "TESSERA_LISTEN": "0.0.0.0:9000",
            "TESSERA_ADMIN_LISTEN": "none", "TESSERA_LOOPS": "3", "TESSERA_TRUSTED_PROXIES": "10.0.0.0/8, ::1",
            "TESSERA_APP_VERIFICATION": "disabled-for-testing", "TESSERA_ISSUER": "https://auth.example.com",
            "TESSERA_MASTER_KEY_FILE": "/run/secrets/master.key",
        ]
        let fromEnvironment = try ServerConfiguration.resolve(
            ServerConfiguration.Options(), environment: environment, processorCount: 8)
        #expect(fromEnvironment.databaseURL == "postgresql:///from-env")
        #expect(fromEnvironment.publicListen == ListenAddress(host: "0.0.0.0", port: 9000))
        #expect(fromEnvironment.adminListen == nil)
        #expect(fromEnvironment.loops == 3)
        #expect(fromEnvironment.trustedProxies.map(\.description) == ["10.0.0.0/8", "::1"])
        #expect(fromEnvironment.appVerification == .disabledForTesting)
        #expect(fromEnvironment.issuer == "https://auth.example.com")
        #expect(fromEnvironment.masterKeyFile == "/run/secrets/master.key")

        let overridden = try resolve(
            {
                $0.listen = "[::1]:7000"
                $0.loops = "1"
            }, environment: environment)
        #expect(overridden.databaseURL == "postgresql:///tessera")
        #expect(overridden.publicListen == ListenAddress(host: "::1", port: 7000))
        #expect(overridden.loops == 1)
    }

    @Test(
        arguments: [
            ("databaseURL", nil, "--database-url"),
            ("listen", "localhost:8080", "--listen"),
            ("listen", "127.0.0.1", "--listen"),
            ("listen", "127.0.0.1:99999", "--listen"),
            ("listen", "127.0.0.1:+80", "--listen"),
            ("adminListen", "1.2.3:80", "--admin-listen"),
            ("loops", "0", "--loops"),
            ("loops", "two", "--loops"),
            ("loops", "1000", "--loops"),
            ("issuer", "ftp://x", "--issuer"),
            ("issuer", "https://x/?a=b", "--issuer"),
            ("appVerification", "off", "--app-verification"),
            ("smsWebhookURL", "not a url", "--sms-webhook-url"),
            ("bootstrapAdminKey", "short", "--bootstrap-admin-key"),
            ("trustedProxy", "10.0.0.0/33", "--trusted-proxy"),
            ("trustedProxy", "example.com", "--trusted-proxy"),
        ] as [(String, String?, String)])
    func badOptionsAreOneLineErrorsNamingTheOption(field: String, value: String?, option: String) {
        #expect {
            _ = try resolve { options in
                switch field {
                case "databaseURL": options.databaseURL = value
                case "listen": options.listen = value
                case "adminListen": options.adminListen = value
                case "loops": options.loops = value
                case "issuer": options.issuer = value
                case "appVerification": options.appVerification = value
                case "smsWebhookURL": options.smsWebhookURL = value
                case "bootstrapAdminKey": options.bootstrapAdminKey = value
                default: options.trustedProxies = value.map { [$0] } ?? []
                }
            }
        } throws: { error in
            let text = (error as? ServerConfiguration.Invalid)?.description ?? ""
            return text.contains(option) && !text.contains("\n")
        }
    }

    @Test func remoteFactorsComeFromOptionsOrTheEnvironmentAndNameBuiltInFactorsOnly() throws {
        #expect(try resolve().remoteFactors.isEmpty)
        #expect(try resolve({ $0.remoteFactors = ["phone"] }).remoteFactors == ["phone"])
        #expect(try resolve(environment: ["TESSERA_REMOTE_FACTORS": "phone, totp"]).remoteFactors == ["phone", "totp"])
        #expect(throws: ServerConfiguration.Invalid.self) { try resolve({ $0.remoteFactors = ["email"] }) }
    }

    @Test func bothListenersOffOrEqualIsRefused() {
        #expect(throws: ServerConfiguration.Invalid.self) {
            _ = try resolve {
                $0.listen = "none"
                $0.adminListen = "none"
            }
        }
        #expect(throws: ServerConfiguration.Invalid.self) {
            _ = try resolve {
                $0.listen = "127.0.0.1:9000"
                $0.adminListen = "127.0.0.1:9000"
            }
        }
    }

    @Test func networksMatchByPrefix() throws {
        let network = try #require(IPNetwork(parsing: "192.168.4.0/22"))
        #expect(network.contains(try #require(IPAddress(parsing: "192.168.7.255"))))
        #expect(!network.contains(try #require(IPAddress(parsing: "192.168.8.0"))))
        #expect(!network.contains(try #require(IPAddress(parsing: "::1"))))
        let single = try #require(IPNetwork(parsing: "2001:db8::1"))
        #expect(single.prefixLength == 128)
        #expect(single.contains(try #require(IPAddress(parsing: "2001:db8:0::1"))))
        #expect(try #require(IPNetwork(parsing: "0.0.0.0/0")).contains(try #require(IPAddress(parsing: "8.8.8.8"))))
        #expect(IPNetwork(parsing: "10.0.0.0/") == nil)
        #expect(IPNetwork(parsing: "10.0.0.0/8/8") == nil)
    }
}
