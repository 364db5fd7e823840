import FoundationEssentials
public import Logging
public import TesseraCore
public import TesseraLoop
public import TesseraMetrics
public import TesseraPostgres

/// Deletes what no longer matters: every module's ``RetentionRule``s, table by table, in batches of at most
/// ``batchSize`` rows, each batch its own short transaction that skips rows a request has locked, so a pass never
/// holds up the token path. One server of a fleet sweeps at a time: each batch takes the janitor's
/// transaction-level advisory lock, and a pass that finds it held by another server stops at once, deleting
/// nothing.
public final class Janitor: Sendable {
    /// What one pass did.
    public struct Pass: Sendable, Equatable {
        /// Rows deleted per table (every table of the rules, zero included).
        public var deleted: [String: Int]
        /// False when another server held the janitor's lock, so this pass deleted nothing.
        public var ranAlone: Bool
        /// False when a table had more expired rows than one pass deletes (``Janitor/batchesPerTable`` full
        /// batches): rows expire faster than a pass an interval keeps up with, so the next pass runs at once.
        public var complete: Bool
    }

    /// The advisory lock of the janitor (`pg_try_advisory_xact_lock`): "tessjan1" as a number.
    static let lockKey = 0x7465_7373_6a61_6e31
    /// Batches per table per pass, so that one pass ends even while rows expire faster than it deletes them.
    let batchesPerTable: Int

    let database: PostgresClient
    let rules: [RetentionRule]
    let clock: any WallClock
    let batchSize: Int
    let logger: Logger
    private let deleted: Counter?
    private let duration: Histogram?

    /// A janitor applying `rules` (default: every module's) to `database`, timed by `clock`, recording into
    /// `metrics` when given (`tessera_janitor_rows_deleted_total{table}`, `tessera_janitor_pass_seconds`); a pass
    /// deletes at most `batchesPerTable` batches of `batchSize` rows of each table.
    public init(
        database: PostgresClient, rules: [RetentionRule] = SchemaRetention.all, clock: any WallClock,
        batchSize: Int = 500, batchesPerTable: Int = 200, metrics: MetricsRegistry? = nil, logger: Logger
    ) {
        precondition(batchSize > 0 && batchesPerTable > 0)
        self.batchesPerTable = batchesPerTable
        self.database = database
        self.rules = rules
        self.clock = clock
        self.batchSize = batchSize
        self.logger = logger
        deleted = metrics?.counter(
            "tessera_janitor_rows_deleted_total", help: "Expired rows the janitor deleted, by table.",
            labels: ["table"])
        duration = metrics?.histogram(
            "tessera_janitor_pass_seconds", help: "Time one janitor pass took.", labels: [])
    }

    /// Runs one pass over every rule.
    public func runPass() async throws -> Pass {
        let started = ContinuousClock.now
        let now = clock.now()
        var pass = Pass(deleted: [:], ranAlone: true, complete: true)
        for rule in rules {
            let (count, alone) = try await sweep(rule, now: now)
            pass.deleted[rule.table] = count
            if count == batchesPerTable * batchSize { pass.complete = false }
            if count > 0 { deleted?.increment([rule.table], by: count) }
            guard alone else {
                pass.ranAlone = false
                break
            }
        }
        duration?.observe([], ContinuousClock.now - started)
        return pass
    }

    /// Deletes the rows `rule` lets go, batch by batch; returns how many, and false when another server holds
    /// the lock.
    private func sweep(_ rule: RetentionRule, now: Date) async throws -> (Int, Bool) {
        let (seconds, attoseconds) = rule.grace.components
        let cutoff = now.addingTimeInterval(-(Double(seconds) + Double(attoseconds) / 1e18))
        var total = 0
        for _ in 0..<batchesPerTable {
            let results = try await database.withPool { pool in
                try await pool.pipeline([
                    PostgresQuery("SELECT pg_try_advisory_xact_lock($1)", [Self.lockKey]),
                    PostgresQuery(rule.statement, [cutoff, self.batchSize, Self.lockKey]),
                ])
            }
            guard try results[0][0].decode(Bool.self, at: 0) else { return (total, false) }
            total += results[1].rowCount
            if results[1].rowCount < batchSize { break }
        }
        return (total, true)
    }

    /// Runs a pass every `interval` on `loop` until the returned task is cancelled, and the next one at once after a
    /// pass that could not delete everything that had expired (``Pass/complete``); a failed pass is logged and the
    /// next one runs on time.
    public func start(every interval: Duration, on loop: EventLoop) -> Task<Void, Never> {
        Task(executorPreference: loop) { [self] in
            var behind = false
            while !Task.isCancelled {
                do {
                    if behind { await Task.yield() } else { try await loop.sleep(for: interval) }
                } catch {
                    return
                }
                behind = false
                do {
                    let pass = try await runPass()
                    behind = pass.ranAlone && !pass.complete
                    let total = pass.deleted.values.reduce(0, +)
                    if total > 0 {
                        logger.info(
                            "janitor pass", metadata: ["deleted": "\(total)", "alone": "\(pass.ranAlone)"])
                    }
                } catch {
                    logger.warning("janitor pass failed", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
