// The OAuth load generator of `make bench` (scripts/bench-oauth.sh).
//
//   OAuthLoad setup --admin HOST:PORT --admin-key-file FILE --users N --state-file FILE
//       creates N users, a public client (authorization_code + refresh_token) and a confidential client
//       (client_credentials) through the admin RPC, and writes what the runs need to the state file.
//   OAuthLoad run --target HOST:PORT --state-file FILE --scenario cycle|refresh|client_credentials
//       [--headline 16] [--seconds 10] [--sweep 1,2,4,8,16,32,64] [--sweep-seconds 5] [--warmup 1]
//       [--loops 2] [--timeout 10] [--server-pid PID] [--database-url URL]
//       signs each virtual user in once (cycle, refresh), then for the headline concurrency and each sweep
//       concurrency runs a warm-up and a measurement; prints one JSON object per measurement on stdout. With
//       --server-pid and --database-url it adds the server's and the database backends' CPU time and the
//       database transactions per operation; with --database-url it also runs ANALYZE before each measurement
//       (see ResourceProbe.analyze()).
//   OAuthLoad mfa --admin HOST:PORT --admin-key-file FILE --target HOST:PORT --factor-endpoint URL
//       --factor-secret-file FILE [...]
//       the MFA benchmark (scripts/bench-mfa.sh): mfaSignIn.finalize with TOTP in process and as a factor service;
//       see the comment at the top of MFABench.swift.
//
// Virtual users run back to back on keep-alive HTTP/1.1 connections (one each) over TesseraLoop event loops.
import FoundationEssentials
import TesseraCrypto
import TesseraLoop

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2, ["setup", "run", "mfa"].contains(arguments[1]) else {
    Options.fail("usage: OAuthLoad setup|run|mfa --name value ... (see the comment at the top of main.swift)")
}
let options = Options(arguments.dropFirst(2))
let group = try EventLoopGroup(loopCount: options.int("loops", 2))
do {
    switch arguments[1] {
    case "setup": try await setUp(options, group: group)
    case "mfa": try await MFABench.run(options, group: group)
    default: try await run(options, group: group)
    }
} catch {
    log("error: \(error)")
    exit(1)
}
group.shutdown()

/// Creates the fixtures and writes the state file.
func setUp(_ options: Options, group: EventLoopGroup) async throws {
    let admin = options.endpoint("admin")
    let keyFile = options.string("admin-key-file")
    guard let keyText = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
        throw LoadError.setup("cannot read the admin key file \(keyFile)")
    }
    let key = String(Substring(keyText).trimmingSpaces().filter { !$0.isNewline })
    let userCount = options.int("users", 64)
    let stateFile = options.string("state-file")
    let redirectURI = "com.example.oauthbench:/callback"
    var random = FastRandom()
    let run = Base64URL.encode(random.bytes(6)).lowercased()
        .replacingCharacters("-", "x").replacingCharacters("_", "y")
    let emailPrefix = "oauthbench-\(run)-"
    let password = "bench-" + Base64URL.encode(random.bytes(12))

    let loop = group.loops[0]
    let (publicClient, confidentialClient) = try await Task(executorPreference: loop) {
        let client = AdminClient(loop: loop, host: admin.host, port: admin.port, key: key)
        defer { client.close() }
        let publicClient = try await client.call(
            "oauthClients.create",
            AdminClient.NewClient(
                client: .init(
                    clientName: "OAuth bench (native app)", type: "public", redirectUris: [redirectURI],
                    grantTypes: ["authorization_code", "refresh_token"])),
            as: AdminClient.CreatedClient.self)
        let confidentialClient = try await client.call(
            "oauthClients.create",
            AdminClient.NewClient(
                client: .init(
                    clientName: "OAuth bench (service)", type: "confidential",
                    redirectUris: ["https://oauthbench.example.com/callback"], grantTypes: ["client_credentials"])),
            as: AdminClient.CreatedClient.self)
        return (publicClient, confidentialClient)
    }.value
    guard let secret = confidentialClient.clientSecret else {
        throw LoadError.setup("oauthClients.create returned no clientSecret for the confidential client")
    }

    // Users are created by 8 workers over the loops: password hashing dominates, and the server has 2 loops.
    let workers = min(8, userCount)
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        for worker in 0..<workers {
            let loop = group.loops[worker % group.loops.count]
            tasks.addTask(executorPreference: loop) {
                let client = AdminClient(loop: loop, host: admin.host, port: admin.port, key: key)
                defer { client.close() }
                for index in stride(from: worker, to: userCount, by: workers) {
                    _ = try await client.call(
                        "users.create",
                        AdminClient.NewUser(email: "\(emailPrefix)\(index)@example.com", password: password),
                        as: AdminClient.CreatedUser.self)
                }
            }
        }
        try await tasks.waitForAll()
    }
    let state =
        [
            "public_client_id=\(publicClient.clientId)", "redirect_uri=\(redirectURI)",
            "confidential_client_id=\(confidentialClient.clientId)", "client_secret=\(secret)",
            "email_prefix=\(emailPrefix)", "password=\(password)", "users=\(userCount)",
        ].joined(separator: "\n") + "\n"
    guard let file = fopen(stateFile, "w") else { throw LoadError.setup("cannot write \(stateFile)") }
    fputs(state, file)
    fclose(file)
    log("created \(userCount) users and 2 clients; state in \(stateFile)")
}

/// Reads the state file written by `setup`.
func readState(_ path: String, target: (host: String, port: Int)) throws -> (BenchTarget, users: Int) {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        throw LoadError.setup("cannot read the state file \(path) (run `OAuthLoad setup` first)")
    }
    var values: [String: String] = [:]
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
    }
    func value(_ name: String) throws -> String {
        guard let value = values[name] else { throw LoadError.setup("the state file \(path) has no \(name)") }
        return value
    }
    let bench = BenchTarget(
        host: target.host, port: target.port, publicClientID: try value("public_client_id"),
        redirectURI: try value("redirect_uri"), confidentialClientID: try value("confidential_client_id"),
        clientSecret: try value("client_secret"), emailPrefix: try value("email_prefix"),
        password: try value("password"))
    return (bench, Int(try value("users")) ?? 0)
}

/// Signs users in, then runs every measurement and prints its JSON line.
func run(_ options: Options, group: EventLoopGroup) async throws {
    guard let scenario = Scenario(rawValue: options.string("scenario")) else {
        Options.fail("--scenario must be one of \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    let headline = options.int("headline", 16)
    let seconds = options.int("seconds", 10)
    let sweep = options.ints("sweep")
    let sweepSeconds = options.int("sweep-seconds", max(1, seconds / 2))
    let warmup = options.int("warmup", 1, minimum: 0)
    let timeout = Duration.seconds(options.int("timeout", 10))
    let (target, userCount) = try readState(options.string("state-file"), target: options.endpoint("target"))
    let needed = max(headline, sweep.max() ?? 0)
    if scenario.needsSession && needed > userCount {
        throw LoadError.setup("\(needed) virtual users need \(needed) users; setup made \(userCount)")
    }
    let users = (0..<needed).map {
        VirtualUser(
            index: $0, target: target, loop: group.loops[$0 % group.loops.count], timeout: timeout,
            setupTimeout: .seconds(120))
    }
    if scenario.needsSession {
        // Sign-ins hash passwords (scrypt): a few at a time keeps each one's wait short.
        let started = ContinuousClock.now
        for batch in stride(from: 0, to: users.count, by: 8) {
            try await forEach(Array(users[batch..<min(batch + 8, users.count)])) { user in
                try await user.signIn()
                if scenario == .refresh { try await user.prepareRefresh() }
            }
        }
        log("\(scenario.rawValue): \(needed) virtual users signed in (\(ContinuousClock.now - started))")
    }
    let probe = try await ResourceProbe(
        serverPID: options.optional("server-pid").flatMap { Int32($0) }, databaseURL: options.optional("database-url"),
        group: group)
    var plan = [("headline", headline, seconds)]
    plan += sweep.map { ("sweep", $0, sweepSeconds) }
    for (phase, concurrency, duration) in plan {
        let active = Array(users.prefix(concurrency))
        try await forEach(active) { $0.reconnect() }
        if warmup > 0 { _ = try await measure(scenario, active, seconds: warmup) }
        log("\(scenario.rawValue) c=\(concurrency): measuring for \(duration) s")
        try await probe.analyze()
        let before = try await probe.sample()
        let result = try await measure(scenario, active, seconds: duration)
        let after = try await probe.sample()
        for (kind, message) in result.firstErrors.sorted(by: { $0.key < $1.key }) {
            log("\(scenario.rawValue) c=\(concurrency): \(result.errors[kind] ?? 0) × \(message)")
        }
        let usage = probe.members(from: before, to: after, operations: result.operations)
        writeLine(result.json(scenario: scenario, phase: phase, concurrency: concurrency, extra: usage), to: 1)
    }
    await probe.shutdown()
    try await forEach(users) { $0.connection.close() }
}

/// Runs `body` for every user at once, each on its loop, and waits for all.
func forEach(_ users: [VirtualUser], _ body: @escaping @Sendable (VirtualUser) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        for user in users {
            tasks.addTask(executorPreference: user.loop) { try await body(user) }
        }
        try await tasks.waitForAll()
    }
}

/// Runs `scenario` with `users` back to back for `seconds` and merges what they did.
func measure(_ scenario: Scenario, _ users: [VirtualUser], seconds: Int) async throws -> Measurement {
    let clock = ContinuousClock()
    let started = clock.now
    let deadline = started + .seconds(seconds)
    var total = try await withThrowingTaskGroup(of: Measurement.self) { tasks in
        for user in users {
            tasks.addTask(executorPreference: user.loop) {
                var measurement = Measurement()
                while clock.now < deadline {
                    let requestsBefore = user.requests
                    do {
                        try await scenario.run(user, into: &measurement.latencies)
                        measurement.operations += 1
                    } catch {
                        measurement.record(error)
                    }
                    measurement.requests += user.requests - requestsBefore
                }
                return measurement
            }
        }
        var total = Measurement()
        for try await measurement in tasks { total.merge(measurement) }
        return total
    }
    total.seconds = Double(VirtualUser.micros(clock.now - started)) / 1_000_000
    return total
}
