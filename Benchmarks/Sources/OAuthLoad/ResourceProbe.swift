import TesseraLoop
import TesseraPostgres

#if canImport(Glibc)
import Glibc
#endif

/// Reads what the server, its database and the generator spend: the server process's CPU time (`/proc/PID/stat`)
/// and its threads' task switches (`/proc/PID/task/*/status`), the generator's CPU time, a factor service's
/// (`/proc/PID/stat`, when given), the CPU time of the database's client backends, and the database's committed
/// and rolled-back transactions (`pg_stat_database`, which backends update about once a second, so short intervals
/// are approximate).
/// A probe without a pid or a database URL reports only what it has.
final class ResourceProbe: @unchecked Sendable {
    /// One reading.
    struct Sample: Sendable {
        var serverTicks: Int?
        var serverSwitches: TaskSwitches?
        var generatorTicks: Int?
        var factorTicks: Int?
        var databaseTicks: Int?
        var transactions: Int?
    }

    /// How often a process's threads gave up the CPU, summed over its threads.
    struct TaskSwitches: Sendable {
        /// Switches away from a thread that waited (for a socket, a lock, a timer): it slept.
        var voluntary = 0
        /// Switches away from a thread that could have gone on: another thread took its CPU (it was preempted).
        var involuntary = 0
    }

    private let serverPID: Int32?
    private let factorPID: Int32?
    private let client: PostgresClient?
    private let loop: EventLoop
    private let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// A probe of process `serverPID`, of the factor service `factorPID` and of the database at `databaseURL` (a
    /// connection on `group`'s first loop).
    init(serverPID: Int32?, factorPID: Int32? = nil, databaseURL: String?, group: EventLoopGroup) async throws {
        self.serverPID = serverPID
        self.factorPID = factorPID
        loop = group.loops[0]
        if let databaseURL {
            let client = PostgresClient(
                configuration: PostgresConfiguration(url: databaseURL, connectionsPerLoop: 1), group: group)
            try await client.start()
            self.client = client
        } else {
            client = nil
        }
    }

    /// Reads the counters now (the database on the probe's loop, as its pool requires).
    func sample() async throws -> Sample {
        try await Task(executorPreference: loop) { try await self.read() }.value
    }

    private func read() async throws -> Sample {
        var sample = Sample()
        sample.generatorTicks = Self.cpuTicks(of: getpid())
        if let serverPID {
            sample.serverTicks = Self.cpuTicks(of: serverPID)
            sample.serverSwitches = Self.taskSwitches(of: serverPID)
        }
        if let factorPID { sample.factorTicks = Self.cpuTicks(of: factorPID) }
        if let client {
            let pool = client.pool(on: loop)
            let backends = try await pool.query(
                "SELECT pid::int8 FROM pg_stat_activity WHERE datname = current_database() "
                    + "AND backend_type = 'client backend' AND pid <> pg_backend_pid()")
            var ticks = 0
            for row in backends.rows {
                ticks += Self.cpuTicks(of: Int32(try row.decode(Int64.self, at: 0))) ?? 0
            }
            sample.databaseTicks = ticks
            let transactions = try await pool.query(
                "SELECT (xact_commit + xact_rollback)::int8 FROM pg_stat_database WHERE datname = current_database()")
            sample.transactions = try transactions.rows.first.map { Int(try $0.decode(Int64.self, at: 0)) }
        }
        return sample
    }

    /// JSON members for what happened between `start` and `end` per operation: server, factor service and database
    /// CPU in microseconds, the server's threads' task switches and database transactions (empty when nothing was
    /// probed).
    func members(from start: Sample, to end: Sample, operations: Int) -> [String] {
        guard operations > 0 else { return [] }
        var members: [String] = []
        let perOperation = { (value: Double) in (value / Double(operations) * 100).rounded() / 100 }
        if let before = start.serverTicks, let after = end.serverTicks {
            members.append("\"server_cpu_us_per_op\":\(perOperation(Double(after - before) / ticksPerSecond * 1e6))")
        }
        if let before = start.serverSwitches, let after = end.serverSwitches {
            let preemptions = Double(after.involuntary - before.involuntary)
            members.append("\"server_preemptions_per_op\":\(perOperation(preemptions))")
            members.append("\"server_sleeps_per_op\":\(perOperation(Double(after.voluntary - before.voluntary)))")
        }
        if let before = start.generatorTicks, let after = end.generatorTicks {
            members.append("\"generator_cpu_us_per_op\":\(perOperation(Double(after - before) / ticksPerSecond * 1e6))")
        }
        if let before = start.factorTicks, let after = end.factorTicks {
            members.append("\"factor_cpu_us_per_op\":\(perOperation(Double(after - before) / ticksPerSecond * 1e6))")
        }
        if let before = start.databaseTicks, let after = end.databaseTicks {
            members.append("\"db_cpu_us_per_op\":\(perOperation(Double(after - before) / ticksPerSecond * 1e6))")
        }
        if let before = start.transactions, let after = end.transactions {
            members.append("\"db_transactions_per_op\":\(perOperation(Double(after - before)))")
        }
        return members
    }

    /// Updates the planner statistics of the whole database (`ANALYZE`), as autovacuum does in steady state.
    ///
    /// The tables of a fresh benchmark database grow from nothing to tens of thousands of rows within a minute,
    /// faster than autovacuum's analyze follows; statements the server's connections planned while a table was
    /// tiny (foreign-key checks among them) keep scanning it sequentially until its statistics change. Analyzing
    /// before each measurement measures the steady state instead of that start-up artefact.
    func analyze() async throws {
        guard let client else { return }
        let loop = self.loop
        try await Task(executorPreference: loop) { _ = try await client.pool(on: loop).query("ANALYZE") }.value
    }

    /// Closes the database connection.
    func shutdown() async {
        await client?.shutdown()
    }

    /// The task switches of every thread of process `pid` so far, or nil when its thread list cannot be read (a
    /// thread that ends meanwhile is left out).
    private static func taskSwitches(of pid: Int32) -> TaskSwitches? {
        guard let directory = opendir("/proc/\(pid)/task") else { return nil }
        defer { closedir(directory) }
        var switches = TaskSwitches()
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard Int(name) != nil, let status = fopen("/proc/\(pid)/task/\(name)/status", "r") else { continue }
            defer { fclose(status) }
            var buffer = [CChar](repeating: 0, count: 256)
            while fgets(&buffer, Int32(buffer.count), status) != nil {
                let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, let count = Int(String(parts[1].filter(\.isNumber))) else { continue }
                if parts[0] == "voluntary_ctxt_switches" { switches.voluntary += count }
                if parts[0] == "nonvoluntary_ctxt_switches" { switches.involuntary += count }
            }
        }
        return switches
    }

    /// User plus system CPU time of process `pid` in clock ticks, or nil when it cannot be read.
    private static func cpuTicks(of pid: Int32) -> Int? {
        guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Fields after the parenthesised command name, which may hold spaces: state is field 3, utime 14, stime 15.
        guard let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }
}
