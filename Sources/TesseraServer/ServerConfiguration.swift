public import TesseraHTTP

/// How the server is run (API §1), resolved from command-line options, then the environment, then defaults.
public struct ServerConfiguration: Sendable {
    /// Whether phone numbers need app verification (`--app-verification`).
    public enum AppVerificationMode: String, Sendable, CaseIterable {
        /// App verification tokens are checked by the configured verifier.
        case enforced
        /// Only test phone numbers work; for test deployments.
        case disabledForTesting = "disabled-for-testing"
    }

    /// libpq connection string or URI.
    public var databaseURL: String
    /// The public listener, or nil when turned off with `none`.
    public var publicListen: ListenAddress?
    /// The admin listener, or nil when turned off with `none`.
    public var adminListen: ListenAddress?
    /// `iss` of every token and OAuth response.
    public var issuer: String
    /// Event loops (threads) serving connections.
    public var loops: Int
    /// A project-scope admin key ensured at start.
    public var bootstrapAdminKey: String?
    /// The file holding the 32-byte master key.
    public var masterKeyFile: String?
    /// Files of master keys that still open what they sealed but seal nothing (`--previous-master-key-file`): the
    /// keys of before a rotation, until `tessera reseal` has run and the short-lived secrets they sealed expired.
    public var previousMasterKeyFiles: [String] = []
    /// Where SMS are delivered; nil writes them to the log.
    public var smsWebhookURL: String?
    /// Where e-mail is delivered; nil writes it to the log.
    public var emailWebhookURL: String?
    /// App verification mode.
    public var appVerification: AppVerificationMode
    /// Peers whose `X-Forwarded-For` / `Forwarded` headers are believed.
    public var trustedProxies: [IPNetwork]
    /// Whether `serve` applies pending migrations at start.
    public var migrateAtStart: Bool
    /// Built-in factors that run as factor services instead of in this process (`--remote-factor`, `phone` or
    /// `totp`): left out of the built-in registry, so that a service registered with their id takes their place.
    public var remoteFactors: Set<String> = []
    /// Seconds between two janitor passes (`--retention-interval`); 0 runs none.
    public var retentionInterval = 60
    /// Whether the server may run without a master key on a public issuer (`--dev`).
    public var developmentMode = false
    /// The most connections each listener keeps open at once (`--max-connections`).
    public var maxConnections = 10_000
    /// The most connections one client address keeps open on each listener (`--max-connections-per-client`);
    /// trusted proxies are exempt.
    public var maxConnectionsPerClient = 256
    /// The passwords one client address may check or set a minute (`--max-password-attempts-per-client`), over
    /// the RPC and the login pages; addresses are taken after trusted proxies.
    public var maxPasswordAttemptsPerClient = 600

    /// The options as given on the command line; nil means "not given".
    public struct Options: Sendable {
        public var databaseURL: String?
        public var listen: String?
        public var adminListen: String?
        public var issuer: String?
        public var loops: String?
        public var bootstrapAdminKey: String?
        public var masterKeyFile: String?
        public var previousMasterKeyFiles: [String] = []
        public var smsWebhookURL: String?
        public var emailWebhookURL: String?
        public var appVerification: String?
        public var trustedProxies: [String]
        public var noMigrate: Bool
        public var remoteFactors: [String] = []
        public var maxConnections: String?
        public var maxConnectionsPerClient: String?
        public var maxPasswordAttemptsPerClient: String?
        public var dev = false
        public var retentionInterval: String?

        /// Creates an empty set of options.
        public init() {
            trustedProxies = []
            noMigrate = false
        }
    }

    /// A configuration that cannot be used, with a one-line explanation naming the option.
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        /// The one-line explanation.
        public let description: String
    }

    /// Resolves options, then environment variables (`TESSERA_*`), then defaults; throws on the first invalid
    /// value. `processorCount` is the default of `--loops`.
    public static func resolve(
        _ options: Options, environment: [String: String], processorCount: Int
    ) throws(Invalid) -> ServerConfiguration {
        func value(_ option: String?, _ variable: String) -> String? {
            option ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let databaseURL = value(options.databaseURL, "TESSERA_DATABASE_URL") else {
            throw Invalid(description: "--database-url (or TESSERA_DATABASE_URL) is required")
        }
        let publicListen = try listenAddress(
            value(options.listen, "TESSERA_LISTEN") ?? "127.0.0.1:8080", option: "--listen")
        let adminListen = try listenAddress(
            value(options.adminListen, "TESSERA_ADMIN_LISTEN") ?? "127.0.0.1:8081", option: "--admin-listen")
        if publicListen == nil && adminListen == nil {
            throw Invalid(description: "--listen and --admin-listen are both none: nothing to serve")
        }
        if let publicListen, let adminListen, publicListen.port != 0, publicListen == adminListen {
            throw Invalid(description: "--listen and --admin-listen must differ (both are \(publicListen))")
        }
        let issuer = value(options.issuer, "TESSERA_ISSUER") ?? "http://127.0.0.1:8080"
        guard isWebURL(issuer), !issuer.contains("?"), !issuer.contains("#") else {
            throw Invalid(description: "--issuer must be an http(s) URL without query or fragment, got '\(issuer)'")
        }
        let loopsText = value(options.loops, "TESSERA_LOOPS")
        let loops = loopsText.map { Int($0) ?? -1 } ?? max(1, processorCount)
        guard (1...256).contains(loops) else {
            throw Invalid(description: "--loops must be a whole number from 1 to 256, got '\(loopsText ?? "")'")
        }
        let bootstrapAdminKey = value(options.bootstrapAdminKey, "TESSERA_BOOTSTRAP_ADMIN_KEY")
        if let key = bootstrapAdminKey, key.utf8.count < 16 {
            throw Invalid(description: "--bootstrap-admin-key must be at least 16 characters")
        }
        let smsWebhookURL = value(options.smsWebhookURL, "TESSERA_SMS_WEBHOOK_URL")
        let emailWebhookURL = value(options.emailWebhookURL, "TESSERA_EMAIL_WEBHOOK_URL")
        for (name, url) in [("--sms-webhook-url", smsWebhookURL), ("--email-webhook-url", emailWebhookURL)] {
            if let url, !isWebURL(url) { throw Invalid(description: "\(name) must be an http(s) URL, got '\(url)'") }
        }
        let modeText = value(options.appVerification, "TESSERA_APP_VERIFICATION") ?? "enforced"
        guard let appVerification = AppVerificationMode(rawValue: modeText) else {
            throw Invalid(description: "--app-verification must be enforced or disabled-for-testing, got '\(modeText)'")
        }
        var proxyTexts = options.trustedProxies
        if proxyTexts.isEmpty, let fromEnvironment = environment["TESSERA_TRUSTED_PROXIES"] {
            proxyTexts = fromEnvironment.split(separator: ",").map { String($0).trimmingSpaces }
        }
        var trustedProxies: [IPNetwork] = []
        for text in proxyTexts {
            guard let network = IPNetwork(parsing: text) else {
                throw Invalid(description: "--trusted-proxy must be an IP address or CIDR network, got '\(text)'")
            }
            trustedProxies.append(network)
        }
        var remoteTexts = options.remoteFactors
        if remoteTexts.isEmpty, let fromEnvironment = environment["TESSERA_REMOTE_FACTORS"] {
            remoteTexts = fromEnvironment.split(separator: ",").map { String($0).trimmingSpaces }
        }
        for name in remoteTexts where !["phone", "totp"].contains(name) {
            throw Invalid(description: "--remote-factor must be phone or totp, got '\(name)'")
        }
        var configuration = ServerConfiguration(
            databaseURL: databaseURL, publicListen: publicListen, adminListen: adminListen, issuer: issuer,
            loops: loops, bootstrapAdminKey: bootstrapAdminKey,
            masterKeyFile: value(options.masterKeyFile, "TESSERA_MASTER_KEY_FILE"),
            smsWebhookURL: smsWebhookURL, emailWebhookURL: emailWebhookURL, appVerification: appVerification,
            trustedProxies: trustedProxies, migrateAtStart: !options.noMigrate)
        configuration.remoteFactors = Set(remoteTexts)
        configuration.previousMasterKeyFiles = try previousMasterKeyFiles(
            options.previousMasterKeyFiles, environment: environment, current: configuration.masterKeyFile)
        configuration.developmentMode = options.dev || environment["TESSERA_DEV"] == "1"
        if let text = value(options.retentionInterval, "TESSERA_RETENTION_INTERVAL") {
            guard let seconds = Int(text), (0...86_400).contains(seconds) else {
                throw Invalid(
                    description: "--retention-interval must be a whole number of seconds from 0 (off) to 86400, "
                        + "got '\(text)'")
            }
            configuration.retentionInterval = seconds
        }
        if configuration.masterKeyFile == nil, !configuration.developmentMode, !isLoopback(issuer: issuer) {
            throw Invalid(
                description: "--master-key-file is required for the issuer \(issuer): without it secrets are sealed "
                    + "with a public key and codes are logged (use a loopback --issuer or --dev for development)")
        }
        configuration.maxConnections = try count(
            value(options.maxConnections, "TESSERA_MAX_CONNECTIONS"), option: "--max-connections",
            default: configuration.maxConnections)
        configuration.maxConnectionsPerClient = try count(
            value(options.maxConnectionsPerClient, "TESSERA_MAX_CONNECTIONS_PER_CLIENT"),
            option: "--max-connections-per-client", default: configuration.maxConnectionsPerClient)
        configuration.maxPasswordAttemptsPerClient = try count(
            value(options.maxPasswordAttemptsPerClient, "TESSERA_MAX_PASSWORD_ATTEMPTS_PER_CLIENT"),
            option: "--max-password-attempts-per-client", default: configuration.maxPasswordAttemptsPerClient)
        return configuration
    }

    /// The previous master keys' files: the options, else `TESSERA_PREVIOUS_MASTER_KEY_FILES` (comma-separated);
    /// they need a current key.
    public static func previousMasterKeyFiles(
        _ options: [String], environment: [String: String], current: String?
    ) throws(Invalid) -> [String] {
        var files = options
        if files.isEmpty, let fromEnvironment = environment["TESSERA_PREVIOUS_MASTER_KEY_FILES"] {
            files = fromEnvironment.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        }
        if !files.isEmpty, current == nil {
            throw Invalid(
                description: "--previous-master-key-file needs --master-key-file: previous keys only open, "
                    + "the current one seals")
        }
        return files
    }

    /// Whether `issuer` (an http(s) URL) names this machine: `localhost`, 127.0.0.0/8 or `[::1]`.
    static func isLoopback(issuer: String) -> Bool {
        let afterScheme = issuer.split(separator: "://", maxSplits: 1)
        guard afterScheme.count == 2 else { return false }
        let authority = afterScheme[1].prefix { $0 != "/" }
        let hostAndPort = authority.split(separator: "@").last ?? authority
        let host: Substring
        if hostAndPort.hasPrefix("[") {
            host = hostAndPort.prefix { $0 != "]" }.dropFirst()
        } else {
            host = hostAndPort.prefix { $0 != ":" }
        }
        if host.lowercased() == "localhost" { return true }
        guard let address = IPAddress(parsing: String(host)) else { return false }
        return ["127.0.0.0/8", "::1/128"].contains { IPNetwork(parsing: $0)?.contains(address) == true }
    }

    /// A limit from `text`: a whole number from 1 to 1,000,000; `default` when not given.
    private static func count(_ text: String?, option: String, default value: Int) throws(Invalid) -> Int {
        guard let text else { return value }
        guard let number = Int(text), (1...1_000_000).contains(number) else {
            throw Invalid(description: "\(option) must be a whole number from 1 to 1000000, got '\(text)'")
        }
        return number
    }

    private static func listenAddress(_ text: String, option: String) throws(Invalid) -> ListenAddress? {
        if text == "none" { return nil }
        guard let address = ListenAddress(parsing: text) else {
            throw Invalid(description: "\(option) must be HOST:PORT with a numeric host, or none; got '\(text)'")
        }
        return address
    }

    private static func isWebURL(_ text: String) -> Bool {
        for scheme in ["http://", "https://"] where text.lowercased().hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            return !rest.isEmpty && !rest.hasPrefix("/") && !rest.contains(where: { $0 == " " || $0 == "\n" })
        }
        return false
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
