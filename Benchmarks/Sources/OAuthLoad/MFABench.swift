// `OAuthLoad mfa`: the MFA benchmark of scripts/bench-mfa.sh. `mfaSignIn.finalize` with a TOTP code, in process
// (the built-in factor) against the same factor run as a factor service (`tessera factor serve totp --id
// totp-remote`), both measured in one run, alternating.
//
//   OAuthLoad mfa --admin HOST:PORT --admin-key-file FILE --target HOST:PORT
//       --factor-endpoint http://HOST:PORT/rpc --factor-secret-file FILE
//       [--concurrency 16] [--seconds 10] [--warmup 1] [--operations 1000] [--rounds 2] [--loops 2] [--timeout 10]
//       [--workers 8] [--server-pid PID] [--factor-pid PID] [--database-url URL]
//
// It registers the factor service, makes two tenants (A: `totpProviderConfig` with 10 adjacent intervals; B: the
// factor service, whose TOTP falls back to its default window of 5 since B's config has no `totpProviderConfig`),
// and enrols users of each in TOTP. Every `mfaSignIn.finalize` spends one pending credential (an
// `accounts.signInWithPassword`, a scrypt hash on the server) and one TOTP time step of its enrolment (a step is
// accepted once, and only after the last accepted one), so the operations are prepared before they are measured:
// per round, every credential the round may spend is issued first (`--workers` sign-ins at a time), then each
// scenario gets a warm-up and a measurement, in-process first. A measurement runs `--concurrency` virtual users for
// `--seconds` or until the credentials prepared for it (about `--operations`) run out, whichever comes first; the
// rate counts what finished while every virtual user still had work (see ``MFABench.measure``). Each virtual user
// owns its enrolments and uses each one's steps in increasing order, within the window less one step on each side
// (the server reads the clock after the generator), skipping steps whose code another step of the window shares.
// One JSON object per measurement goes to stdout, with the preparation's figures in a `"kind":"prepare"` line
// before each round's.
import FoundationEssentials
import TesseraCrypto
import TesseraLoop

#if canImport(Glibc)
import Glibc
#endif

/// One side of the comparison: a tenant whose TOTP factor runs in process or as a factor service.
struct MFAScenario: Sendable {
    /// The name in the results (`totp_in_process`, `totp_remote`).
    var name: String
    /// The factor id (`totp`, `totp-remote`).
    var factorID: String
    /// The tenant's id, once made.
    var tenantID = ""
    /// The ± steps the factor accepts.
    var window: Int
    /// The param members of the factor's methods (API §4; renamed by `--id` for the factor service).
    var enrollmentInfo: String
    var enrollmentResult: String
    var verificationInfo: String

    /// Codes one enrolment gives within one time step: the window less one step on each side and less the step
    /// the enrolment used (when the measurement falls in the step of the enrolment).
    var codesPerAccount: Int { max(1, 2 * window - 2) }

    /// The tenant's `mfaConfig` (JSON).
    var mfaConfig: String {
        factorID == "totp"
            ? #"{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":\#(window)}}]}"#
            : #"{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","factorServiceProviderConfig":{"factorId":"\#(factorID)"}}]}"#
    }
}

/// A user enrolled in a scenario's TOTP factor, with the pending credentials prepared for it. Used by one task at a
/// time (the preparation's worker, then one virtual user), hence the unchecked `Sendable`.
final class MFAAccount: @unchecked Sendable {
    let email: String
    let enrollmentID: String
    private let generator: OneTimePassword
    /// Codes by step, computed once each.
    private var codes: [Int64: String] = [:]
    /// The last step used (accepted, or sent and failed: never sent again).
    private(set) var lastStep: Int64
    /// Pending credentials not spent yet.
    var credentials: [String] = []

    init(email: String, enrollmentID: String, generator: OneTimePassword, lastStep: Int64) {
        self.email = email
        self.enrollmentID = enrollmentID
        self.generator = generator
        self.lastStep = lastStep
    }

    /// The next step to send at `unixTime` and its code, or nil when the window holds no usable step any more; the
    /// step counts as used from now on.
    func nextCode(at unixTime: Int64, window: Int) throws -> (step: Int64, code: String)? {
        var cache = codes
        defer { codes = cache }
        guard let found = try Self.usableStep(after: lastStep, at: unixTime, window: window, generator, &cache) else {
            return nil
        }
        lastStep = found.step
        return found
    }

    /// The first step after `last` within the window around `unixTime` (less one step on each side) whose code no
    /// other step from the window's edges (plus one on each side) shares: the server checks the steps nearest to
    /// its own now first, so a shared code could be taken for another step.
    static func usableStep(
        after last: Int64, at unixTime: Int64, window: Int, _ generator: OneTimePassword, _ cache: inout [Int64: String]
    ) throws -> (step: Int64, code: String)? {
        func code(_ step: Int64) throws -> String {
            if let known = cache[step] { return known }
            let computed = try generator.hotp(counter: UInt64(step))
            cache[step] = computed
            return computed
        }
        let now = unixTime / 30
        let reach = Int64(window)
        var step = max(last + 1, now - reach + 1)
        candidates: while step <= now + reach - 1 {
            let candidate = try code(step)
            for other in (now - reach - 1)...(now + reach + 1) where other != step {
                if try code(other) == candidate {
                    step += 1
                    continue candidates
                }
            }
            return (step, candidate)
        }
        return nil
    }
}

/// One virtual user of the MFA benchmark: a keep-alive connection, and the enrolments it spends in a measurement.
final class MFAVirtualUser: @unchecked Sendable {
    private(set) var connection: HTTPConnection
    private let writer: HTTPRequestWriter
    private let host: String
    private let port: Int
    private let timeout: Duration
    private var nextID = 1
    /// The enrolments of the phase running now, spent in order.
    var accounts: [MFAAccount] = []

    init(loop: EventLoop, host: String, port: Int, timeout: Duration) {
        self.host = host
        self.port = port
        self.timeout = timeout
        connection = HTTPConnection(loop: loop, host: host, port: port, timeout: timeout)
        writer = HTTPRequestWriter(host: "\(host):\(port)")
    }

    var loop: EventLoop { connection.loop }

    /// Closes the connection; the next request opens a fresh one.
    func reconnect() {
        connection.close()
        connection = HTTPConnection(loop: connection.loop, host: host, port: port, timeout: timeout)
    }

    /// What one virtual user did in a phase, with when each operation finished (µs after the start).
    struct Outcome: Sendable {
        var measurement = Measurement()
        var finishedAt: [Int] = []
        /// When the user ran out of credentials (µs after the start), or nil when the deadline stopped it.
        var exhaustedAt: Int?
        /// Credentials left unspent because their enrolment ran out of usable steps.
        var unused = 0
    }

    /// Spends the credentials of ``accounts`` until `deadline`: one `mfaSignIn.finalize` each, in `scenario`.
    func run(
        _ scenario: MFAScenario, started: ContinuousClock.Instant, deadline: ContinuousClock.Instant
    ) async
        -> Outcome
    {
        var outcome = Outcome()
        let prefix =
            #","method":"mfaSignIn.finalize","params":{"tenantId":\#(jsonQuote(scenario.tenantID)),"\#(scenario.verificationInfo)":{"verificationCode":""#
        accounts: for account in accounts {
            while !account.credentials.isEmpty {
                if ContinuousClock.now >= deadline { break accounts }
                let found: (step: Int64, code: String)?
                do {
                    found = try account.nextCode(at: Int64(time(nil)), window: scenario.window)
                } catch {
                    outcome.measurement.record(LoadError.setup("TOTP: \(error)"))
                    account.credentials.removeLast()
                    continue
                }
                guard let found else {
                    outcome.unused += account.credentials.count
                    account.credentials.removeAll()
                    continue accounts
                }
                let credential = account.credentials.removeLast()
                let body =
                    #"{"jsonrpc":"2.0","id":"# + String(nextID) + prefix + found.code
                    + #""},"mfaPendingCredential":"# + jsonQuote(credential) + #","mfaEnrollmentId":"#
                    + jsonQuote(account.enrollmentID) + "}}"
                nextID += 1
                let begin = ContinuousClock.now
                do {
                    let response = try await connection.send(
                        writer.post("/rpc", contentType: "application/json", body: body))
                    outcome.measurement.requests += 1
                    let end = ContinuousClock.now
                    try Self.checkTokenResult(response)
                    outcome.measurement.latencies.operation.record(VirtualUser.micros(end - begin))
                    outcome.measurement.operations += 1
                    outcome.finishedAt.append(VirtualUser.micros(end - started))
                } catch {
                    outcome.measurement.record(error)
                }
            }
        }
        if ContinuousClock.now < deadline { outcome.exhaustedAt = VirtualUser.micros(ContinuousClock.now - started) }
        return outcome
    }

    /// Throws unless `response` is a JSON-RPC result holding a `TokenResult` (an `idToken`).
    static func checkTokenResult(_ response: HTTPResponse) throws {
        if response.status == 200, VirtualUser.jsonString("idToken", in: response.body) != nil { return }
        if let reason = VirtualUser.jsonString("reason", in: response.body) {
            throw LoadError.rpc(reason: reason, detail: String(response.text.prefix(200)))
        }
        throw LoadError.unexpected(status: response.status, detail: String(response.text.prefix(200)))
    }
}

/// `s` as a JSON string literal.
func jsonQuote(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

/// Decodes the members of an object whose values decode as `Value`, whatever their names (a factor's members are
/// named after its id).
struct AnyMembers<Value: Decodable>: Decodable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    var values: [String: Value] = [:]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            if let value = try? container.decode(Value.self, forKey: key) { values[key.stringValue] = value }
        }
    }
}

/// The whole `mfa` subcommand.
enum MFABench {
    struct Ignored: Decodable {}
    struct CreatedTenant: Decodable { var tenantId: String }
    struct SignedIn: Decodable {
        var idToken: String?
        var mfaPendingCredential: String?
    }
    struct TOTPStarted: Decodable {
        var sharedSecretKey: String
        var sessionInfo: String
    }
    struct Finalized: Decodable { var mfaEnrollmentId: String }

    /// What the subcommand needs to reach the servers.
    struct Setting: Sendable {
        var admin: (host: String, port: Int)
        var target: (host: String, port: Int)
        var key: String
        var password: String
        var emailPrefix: String
        var workers: Int
    }

    static func run(_ options: Options, group: EventLoopGroup) async throws {
        let concurrency = options.int("concurrency", 16)
        let seconds = options.int("seconds", 10)
        let warmup = options.int("warmup", 1, minimum: 0)
        let operations = options.int("operations", 1000)
        let rounds = options.int("rounds", 2)
        let timeout = Duration.seconds(options.int("timeout", 10))
        let keyFile = options.string("admin-key-file")
        guard let keyText = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
            throw LoadError.setup("cannot read the admin key file \(keyFile)")
        }
        let secretFile = options.string("factor-secret-file")
        guard let secretText = try? String(contentsOfFile: secretFile, encoding: .utf8) else {
            throw LoadError.setup("cannot read the factor secret file \(secretFile)")
        }
        var random = FastRandom()
        let run = Base64URL.encode(random.bytes(6)).lowercased()
            .replacingCharacters("-", "x").replacingCharacters("_", "y")
        let setting = Setting(
            admin: options.endpoint("admin"), target: options.endpoint("target"),
            key: String(Substring(keyText).trimmingSpaces().filter { !$0.isNewline }),
            password: "bench-" + Base64URL.encode(random.bytes(12)), emailPrefix: "mfabench-\(run)-",
            workers: options.int("workers", 8))
        let factorSecret = String(Substring(secretText).trimmingSpaces().filter { !$0.isNewline })
        let endpoint = options.string("factor-endpoint")

        var scenarios = [
            MFAScenario(
                name: "totp_in_process", factorID: "totp", window: 10, enrollmentInfo: "totpEnrollmentInfo",
                enrollmentResult: "totpSessionInfo", verificationInfo: "totpVerificationInfo"),
            MFAScenario(
                name: "totp_remote", factorID: "totp-remote", window: 5, enrollmentInfo: "totpRemoteEnrollmentInfo",
                enrollmentResult: "totpRemoteSessionInfo", verificationInfo: "totpRemoteVerificationInfo"),
        ]

        // The factor service and the two tenants.
        let loop = group.loops[0]
        let sides = scenarios
        let tenantIDs = try await Task(executorPreference: loop) {
            let client = AdminClient(loop: loop, host: setting.admin.host, port: setting.admin.port, key: setting.key)
            defer { client.close() }
            _ = try await client.call(
                "factorServices.register",
                json:
                    #"{"factorService":{"endpoints":[\#(jsonQuote(endpoint))],"timeoutMs":2000},"secret":\#(jsonQuote(factorSecret))}"#,
                as: Ignored.self)
            var ids: [String] = []
            for scenario in sides {
                let tenant = try await client.call(
                    "tenants.create",
                    json:
                        #"{"tenant":{"displayName":"MFA bench \#(scenario.name)","mfaConfig":\#(scenario.mfaConfig)}}"#,
                    as: CreatedTenant.self)
                ids.append(tenant.tenantId)
            }
            return ids
        }.value
        for index in scenarios.indices { scenarios[index].tenantID = tenantIDs[index] }
        log("mfa: registered the factor service \(endpoint); tenants \(tenantIDs.joined(separator: ", "))")

        // Enrolments: per round and scenario, one per virtual user for the warm-up and enough for `operations`.
        struct Phase {
            var round: Int
            var scenario: Int
            var warmup: [MFAAccount]
            var measured: [MFAAccount]
        }
        var plan: [Phase] = []
        var counts: [(scenario: Int, warmup: Int, measured: Int)] = []
        for index in scenarios.indices {
            let perUser = (operations + concurrency - 1) / concurrency
            let accountsPerUser = (perUser + scenarios[index].codesPerAccount - 1) / scenarios[index].codesPerAccount
            counts.append((index, warmup > 0 ? concurrency : 0, accountsPerUser * concurrency))
        }
        let enrolStarted = ContinuousClock.now
        var enrolled = 0
        for round in 1...rounds {
            for (index, warmupCount, measuredCount) in counts {
                let made = try await enrol(
                    scenarios[index], count: warmupCount + measuredCount, first: enrolled, setting, group: group)
                enrolled += made.count
                plan.append(
                    Phase(
                        round: round, scenario: index, warmup: Array(made.prefix(warmupCount)),
                        measured: Array(made.dropFirst(warmupCount))))
            }
        }
        log("mfa: \(enrolled) users created, signed in and enrolled in \(ContinuousClock.now - enrolStarted)")

        let users = (0..<concurrency).map {
            MFAVirtualUser(
                loop: group.loops[$0 % group.loops.count], host: setting.target.host, port: setting.target.port,
                timeout: timeout)
        }
        let probe = try await ResourceProbe(
            serverPID: options.optional("server-pid").flatMap { Int32($0) },
            factorPID: options.optional("factor-pid").flatMap { Int32($0) },
            databaseURL: options.optional("database-url"), group: group)
        for round in 1...rounds {
            let phases = plan.filter { $0.round == round }
            // Every credential of the round first: a sign-in hashes the password, far slower than a finalize.
            let started = ContinuousClock.now
            var issued = 0
            var jobs: [(MFAAccount, Int, String)] = []
            for phase in phases {
                let scenario = scenarios[phase.scenario]
                for account in phase.warmup + phase.measured {
                    jobs.append((account, scenario.codesPerAccount, scenario.tenantID))
                    issued += scenario.codesPerAccount
                }
            }
            try await issueCredentials(jobs, setting, group: group)
            let took = ContinuousClock.now - started
            let rate = Double(issued) / (Double(VirtualUser.micros(took)) / 1e6)
            log("mfa round \(round): \(issued) pending credentials in \(took) (\(Int(rate)) sign-ins/s)")
            if took > .seconds(480) {
                log("warning: the round's first credentials are close to their 600 s lifetime; lower --operations")
            }
            writeLine(
                #"{"kind":"prepare","round":\#(round),"credentials":\#(issued),"seconds":\#(Double(VirtualUser.micros(took)) / 1e6),"sign_ins_per_second":\#((rate * 10).rounded() / 10)}"#,
                to: 1)
            for phase in phases {
                let scenario = scenarios[phase.scenario]
                try await forEachUser(users) { $0.reconnect() }
                if warmup > 0 {
                    let result = try await measure(scenario, phase.warmup, users, seconds: warmup)
                    if result.errors > 0 {
                        log("mfa round \(round) \(scenario.name) warm-up: \(result.errors) errors")
                    }
                }
                try await probe.analyze()
                let pool = phase.measured.reduce(0) { $0 + $1.credentials.count }
                log(
                    "mfa round \(round): measuring \(scenario.name), \(concurrency) virtual users, \(pool) credentials, at most \(seconds) s"
                )
                // Backends report their transactions to pg_stat_database about once a second, when idle.
                try await Task.sleep(for: .milliseconds(1500))
                let before = try await probe.sample()
                let result = try await measure(scenario, phase.measured, users, seconds: seconds)
                try await Task.sleep(for: .milliseconds(1500))
                let after = try await probe.sample()
                for (kind, message) in result.measurement.firstErrors.sorted(by: { $0.key < $1.key }) {
                    log("mfa \(scenario.name): \(result.measurement.errors[kind] ?? 0) × \(message)")
                }
                var extra = probe.members(from: before, to: after, operations: result.operationsTotal)
                extra += [
                    #""kind":"measurement""#, #""round":\#(round)"#, #""factor":"\#(scenario.factorID)""#,
                    #""window":\#(scenario.window)"#, #""pool":\#(pool)"#,
                    #""operations_total":\#(result.operationsTotal)"#,
                    #""seconds_total":\#(result.secondsTotal)"#,
                    #""pool_limited":\#(result.poolLimited)"#, #""unused_credentials":\#(result.unused)"#,
                ]
                writeLine(
                    result.measurement.json(
                        name: scenario.name, phase: "headline", concurrency: concurrency, extra: extra),
                    to: 1)
            }
        }
        await probe.shutdown()
        try await forEachUser(users) { $0.connection.close() }
    }

    /// What a measurement gives.
    struct Result {
        /// Operations and seconds while every virtual user had work (``Measurement/seconds``), the latencies and
        /// errors of all.
        var measurement: Measurement
        var operationsTotal: Int
        var secondsTotal: Double
        var poolLimited: Bool
        var unused: Int
        var errors: Int { measurement.errors.values.reduce(0, +) }
    }

    /// Deals `accounts` to `users` in turn and runs them for at most `seconds`. The rate counts the operations
    /// that finished before the first virtual user ran out of credentials (or before the deadline), over that
    /// time, so the tail where fewer users are left does not count; the latencies and errors count every operation.
    static func measure(
        _ scenario: MFAScenario, _ accounts: [MFAAccount], _ users: [MFAVirtualUser], seconds: Int
    )
        async throws -> Result
    {
        for user in users { user.accounts = [] }
        for (index, account) in accounts.enumerated() { users[index % users.count].accounts.append(account) }
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = started + .seconds(seconds)
        let outcomes = try await withThrowingTaskGroup(of: MFAVirtualUser.Outcome.self) { tasks in
            for user in users {
                tasks.addTask(executorPreference: user.loop) {
                    await user.run(scenario, started: started, deadline: deadline)
                }
            }
            var all: [MFAVirtualUser.Outcome] = []
            for try await outcome in tasks { all.append(outcome) }
            return all
        }
        let total = VirtualUser.micros(clock.now - started)
        let end = outcomes.compactMap(\.exhaustedAt).min() ?? seconds * 1_000_000
        var merged = Measurement()
        var unused = 0
        for outcome in outcomes {
            merged.merge(outcome.measurement)
            unused += outcome.unused
        }
        let operationsTotal = merged.operations
        merged.operations = outcomes.reduce(0) { $0 + $1.finishedAt.filter { $0 <= end }.count }
        merged.seconds = Double(end) / 1e6
        return Result(
            measurement: merged, operationsTotal: operationsTotal, secondsTotal: Double(total) / 1e6,
            poolLimited: outcomes.contains { $0.exhaustedAt != nil }, unused: unused)
    }

    /// Creates `count` users of `scenario` (`users.create`, e-mail verified), signs each in and enrols it in the
    /// scenario's TOTP factor with the earliest usable step (so later steps are left for the sign-ins).
    static func enrol(
        _ scenario: MFAScenario, count: Int, first: Int, _ setting: Setting, group: EventLoopGroup
    ) async throws -> [MFAAccount] {
        let workers = max(1, min(setting.workers, count))
        let made = try await withThrowingTaskGroup(of: [(Int, MFAAccount)].self) { tasks in
            for worker in 0..<workers {
                let loop = group.loops[worker % group.loops.count]
                tasks.addTask(executorPreference: loop) {
                    let admin = AdminClient(
                        loop: loop, host: setting.admin.host, port: setting.admin.port, key: setting.key)
                    let rpc = AdminClient(loop: loop, host: setting.target.host, port: setting.target.port, key: nil)
                    defer {
                        admin.close()
                        rpc.close()
                    }
                    var made: [(Int, MFAAccount)] = []
                    for index in stride(from: worker, to: count, by: workers) {
                        let email = "\(setting.emailPrefix)\(first + index)@example.com"
                        let tenant = jsonQuote(scenario.tenantID)
                        _ = try await admin.call(
                            "users.create",
                            json:
                                #"{"tenantId":\#(tenant),"email":\#(jsonQuote(email)),"password":\#(jsonQuote(setting.password)),"emailVerified":true}"#,
                            as: Ignored.self)
                        let signedIn = try await retrying("a sign-in") {
                            try await rpc.call(
                                "accounts.signInWithPassword",
                                json:
                                    #"{"tenantId":\#(tenant),"email":\#(jsonQuote(email)),"password":\#(jsonQuote(setting.password))}"#,
                                as: SignedIn.self)
                        }
                        guard let idToken = signedIn.idToken else {
                            throw LoadError.setup("accounts.signInWithPassword of a new user gave no idToken")
                        }
                        let started = try await rpc.call(
                            "mfaEnrollment.start",
                            json:
                                #"{"tenantId":\#(tenant),"idToken":\#(jsonQuote(idToken)),"\#(scenario.enrollmentInfo)":{}}"#,
                            as: AnyMembers<TOTPStarted>.self)
                        guard let session = started.values[scenario.enrollmentResult] else {
                            throw LoadError.setup("mfaEnrollment.start answered no \(scenario.enrollmentResult)")
                        }
                        let generator = try OneTimePassword(secret: try Base32.decode(session.sharedSecretKey))
                        var cache: [Int64: String] = [:]
                        guard
                            let step = try MFAAccount.usableStep(
                                after: 0, at: Int64(time(nil)), window: scenario.window, generator, &cache)
                        else { throw LoadError.setup("no usable TOTP step to enrol with") }
                        let finalized = try await rpc.call(
                            "mfaEnrollment.finalize",
                            json:
                                #"{"tenantId":\#(tenant),"idToken":\#(jsonQuote(idToken)),"\#(scenario.verificationInfo)":{"sessionInfo":\#(jsonQuote(session.sessionInfo)),"verificationCode":"\#(step.code)"}}"#,
                            as: Finalized.self)
                        made.append(
                            (
                                index,
                                MFAAccount(
                                    email: email, enrollmentID: finalized.mfaEnrollmentId, generator: generator,
                                    lastStep: step.step)
                            ))
                    }
                    return made
                }
            }
            var all: [(Int, MFAAccount)] = []
            for try await part in tasks { all += part }
            return all
        }
        return made.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Signs each account in `count` times (`accounts.signInWithPassword`, which answers an MFA challenge) and keeps
    /// the pending credentials, `setting.workers` sign-ins at a time.
    static func issueCredentials(
        _ jobs: [(account: MFAAccount, count: Int, tenantID: String)], _ setting: Setting, group: EventLoopGroup
    ) async throws {
        let workers = max(1, min(setting.workers, jobs.count))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for worker in 0..<workers {
                let loop = group.loops[worker % group.loops.count]
                tasks.addTask(executorPreference: loop) {
                    let rpc = AdminClient(loop: loop, host: setting.target.host, port: setting.target.port, key: nil)
                    defer { rpc.close() }
                    for index in stride(from: worker, to: jobs.count, by: workers) {
                        let (account, count, tenantID) = jobs[index]
                        let params =
                            #"{"tenantId":\#(jsonQuote(tenantID)),"email":\#(jsonQuote(account.email)),"password":\#(jsonQuote(setting.password))}"#
                        for _ in 0..<count {
                            let signedIn = try await retrying("a sign-in") {
                                try await rpc.call("accounts.signInWithPassword", json: params, as: SignedIn.self)
                            }
                            guard let credential = signedIn.mfaPendingCredential else {
                                throw LoadError.setup(
                                    "accounts.signInWithPassword of an enrolled user gave no mfaPendingCredential")
                            }
                            account.credentials.append(credential)
                        }
                    }
                }
            }
            try await tasks.waitForAll()
        }
    }

    /// `body`, tried again up to 4 times, 1 s apart, when it fails: the preparation takes minutes, and the dev
    /// database may restart meanwhile (the server then answers UNAVAILABLE until it has reconnected).
    static func retrying<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch {
                guard attempt < 5 else { throw error }
                log("mfa: \(what) failed (\(error)); trying again in 1 s")
                attempt += 1
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Runs `body` for every virtual user at once, each on its loop, and waits for all.
    static func forEachUser(
        _ users: [MFAVirtualUser], _ body: @escaping @Sendable (MFAVirtualUser) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for user in users { tasks.addTask(executorPreference: user.loop) { try await body(user) } }
            try await tasks.waitForAll()
        }
    }
}
