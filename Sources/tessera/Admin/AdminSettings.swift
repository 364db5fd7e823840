import TesseraHTTP

/// Where and how the admin CLI calls: the listener's `/rpc` endpoint, the key, and the time limit of each call.
struct AdminSettings: Equatable, Sendable {
    /// The listener's base URL as given (shown in messages).
    let url: String
    /// The URL the calls are posted to: the base URL's `/rpc`.
    let endpoint: String
    /// The admin key, sent as `Authorization: Bearer …`.
    let key: String
    /// How long one call may take.
    let timeout: Duration

    /// The default admin listener (API §1).
    static let defaultURL = "http://127.0.0.1:8081"

    /// Resolves the options against the environment. The key comes from `--key-file` when given (read with
    /// `readKeyFile`), else from `TESSERA_ADMIN_KEY`; without either the command is refused.
    static func resolve(
        _ options: AdminOptions, environment: [String: String],
        readKeyFile: (String) throws(AdminUsageError) -> String
    ) throws(AdminUsageError) -> AdminSettings {
        let url = options.url ?? environment["TESSERA_ADMIN_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultURL
        let key: String
        if let path = options.keyFile {
            key = try readKeyFile(path)
        } else if let fromEnvironment = environment["TESSERA_ADMIN_KEY"], !fromEnvironment.isEmpty {
            key = fromEnvironment
        } else {
            throw AdminUsageError("set TESSERA_ADMIN_KEY (or --key-file)")
        }
        guard key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw AdminUsageError("the admin key contains spaces or control characters")
        }
        let endpoint = endpoint(for: url)
        do {
            _ = try HTTPClientURL(parsing: endpoint)
        } catch {
            throw AdminUsageError("--url \(url): \(error)")
        }
        return AdminSettings(
            url: url, endpoint: endpoint, key: key,
            timeout: .milliseconds(Int64((options.timeout * 1000).rounded(.up))))
    }

    /// `<url>/rpc`, unless the URL already ends in `/rpc`; a trailing slash is not doubled.
    static func endpoint(for url: String) -> String {
        var base = Substring(url)
        if base.hasSuffix("/rpc") { return url }
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + "/rpc"
    }
}
