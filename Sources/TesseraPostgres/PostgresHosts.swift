internal import CLibPQ

/// How a connection string's hosts are tried: one at a time, in order, each within its own time limit.
///
/// libpq goes through the hosts of a multi-host string (`host=a,b`, `port=5432,5433`) by itself when one refuses the
/// connection or does not suit `target_session_attrs`, but its `connect_timeout` works only in its blocking calls. A
/// nonblocking connection (``PostgresConnection``) to a host that accepts and then never answers (a hung server, a
/// machine gone from the network) would wait on that host until its own time limit ended the whole attempt, and
/// never reach the next host: a standby listed second and promoted would never be found. So each host gets an
/// attempt of its own, with the string's `host`, `hostaddr` and `port` narrowed to that host, ended after the
/// string's `connect_timeout` (2 s at least, as libpq counts it) or, without one, after the configuration's.
/// A string that names one host, or that libpq will refuse anyway, is tried as it is, once.
struct PostgresHosts: Equatable {
    /// One connection setting: a libpq keyword and its value.
    struct Setting: Equatable {
        let keyword: String
        let value: String
    }

    /// What narrows the string to each host, one entry per attempt in the order they are made (a single empty
    /// entry: the string as it is).
    let attempts: [[Setting]]
    /// The string's `connect_timeout`, when it sets a positive one.
    let connectTimeout: Duration?
    /// The string's own session `options` (`-c name=value …`), which a connection sends before the driver's.
    let sessionOptions: String?

    /// The attempts for `conninfo`, a libpq connection string or URI.
    init(conninfo: String) {
        guard let options = Self.options(conninfo) else {
            // libpq will say what is wrong with it when connecting.
            (attempts, connectTimeout, sessionOptions) = ([[]], nil, nil)
            return
        }
        sessionOptions = options["options"].flatMap { $0.isEmpty ? nil : $0 }
        connectTimeout = options["connect_timeout"]
            .flatMap { Int($0.filter { !$0.isWhitespace }) }
            .flatMap { $0 > 0 ? Duration.seconds(max($0, 2)) : nil }
        attempts = Self.attempts(options)
    }

    /// The time limit of one attempt: the string's `connect_timeout`, else `fallback`.
    func attemptTimeout(_ fallback: Duration) -> Duration { connectTimeout ?? fallback }

    private static func attempts(_ options: [String: String]) -> [[Setting]] {
        func list(_ keyword: String) -> [String]? {
            options[keyword].map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        }
        let hosts = list("host")
        let addresses = list("hostaddr")
        let ports = list("port")
        let count = max(hosts?.count ?? 0, addresses?.count ?? 0)
        // One host, lists that do not match (libpq refuses them), an empty entry (a default libpq fills in, which
        // cannot be given as a value), or a load-balancing mode: the string as it is.
        guard count > 1, hosts.map({ $0.count == count }) ?? true, addresses.map({ $0.count == count }) ?? true,
            ports.map({ $0.count == 1 || $0.count == count }) ?? true, options["load_balance_hosts"] == nil,
            ![hosts, addresses, ports].contains(where: { $0?.contains(where: \.isEmpty) == true })
        else { return [[]] }
        let narrowed = (0..<count).map { index in
            var settings: [Setting] = []
            if let hosts { settings.append(Setting(keyword: "host", value: hosts[index])) }
            if let addresses { settings.append(Setting(keyword: "hostaddr", value: addresses[index])) }
            if let ports, ports.count == count { settings.append(Setting(keyword: "port", value: ports[index])) }
            return settings
        }
        // libpq's prefer-standby: a first pass for a standby, then any server.
        if options["target_session_attrs"] == "prefer-standby" {
            return narrowed.map { $0 + [Setting(keyword: "target_session_attrs", value: "standby")] }
                + narrowed.map { $0 + [Setting(keyword: "target_session_attrs", value: "any")] }
        }
        return narrowed
    }

    /// The settings `conninfo` gives explicitly, by keyword, as libpq reads it (URI or keyword form); nil when
    /// libpq cannot read it.
    static func options(_ conninfo: String) -> [String: String]? {
        var error: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(conninfo, &error) else {
            if let error { PQfreemem(error) }
            return nil
        }
        defer { PQconninfoFree(parsed) }
        var options: [String: String] = [:]
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { options[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return options
    }
}
