internal import CLibPQ
import FoundationEssentials
import TesseraLoop

#if canImport(Glibc)
import Glibc
#endif

/// One libpq connection, nonblocking and in pipeline mode, driven by its loop; use it only on that loop's
/// thread (every method checks).
///
/// Requests are pipelined: many may be on the wire at once, each ended by its own sync, and their results
/// come back in order. The socket is watched for reading always and for writing only while `PQflush` has
/// output left. When the connection breaks, every request on it fails at once with ``PostgresError/Kind/unavailable``
/// and the connection reconnects by itself, with exponential backoff. What to do when is decided by a
/// ``PostgresConnectionStateMachine``; this class makes the libpq and libuv calls and performs its actions.
final class PostgresConnection {
    /// Where the connection is in its life.
    typealias Phase = PostgresConnectionStateMachine<PendingRequest>.Phase

    let loop: EventLoop
    private let configuration: PostgresConfiguration
    /// The hosts of the connection string, tried one at a time.
    private let hosts: PostgresHosts
    /// Every decision: the phase, reconnects, the watchdog, the requests in flight and the prepared statements.
    private var machine: PostgresConnectionStateMachine<PendingRequest>
    /// When the server last answered on this connection (or the connection was made).
    private(set) var lastHeard = ContinuousClock.now
    /// Called after every phase change; the pool tracks readiness and waiters with it.
    var onPhaseChange: ((PostgresConnection) -> Void)?
    /// Called with the payload of every `NOTIFY` the connection receives for a channel it listens on.
    var onNotification: ((_ channel: String, _ payload: String) -> Void)?

    private var connection: OpaquePointer?
    private var poll: SocketPoll?
    /// Ends a connection attempt that takes too long, or waits out the backoff before a reconnect.
    private var timer: LoopTimer?
    /// Checks, while the connection is ready, that the oldest request has not waited past its deadline.
    private var watchdog: LoopTimer?
    private var outputPending = false

    init(loop: EventLoop, configuration: PostgresConfiguration) {
        self.loop = loop
        self.configuration = configuration
        hosts = PostgresHosts(conninfo: configuration.url)
        machine = PostgresConnectionStateMachine(configuration: configuration, attemptCount: hosts.attempts.count)
    }

    /// Where the connection is in its life.
    var phase: Phase { machine.phase }
    /// Why the last connection attempt or connection failed.
    var lastError: String { machine.lastError }
    /// When the request the server left unanswered past the deadline was sent, when that is why the connection was
    /// dropped; the pool then drops its idle connections that have heard nothing since (``PostgresPool``).
    var unansweredSince: ContinuousClock.Instant? { machine.unansweredSince }
    /// Requests sent and not yet answered.
    var pendingCount: Int { machine.inFlightCount }
    /// Whether the connection has never been ready and its last attempt failed.
    var hasFailedSinceStart: Bool { machine.hasFailedSinceStart }

    /// Does what the state machine decided.
    private func perform(_ action: PostgresConnectionStateMachine<PendingRequest>.Action) {
        switch action {
        case .none:
            break
        case .connect:
            onPhaseChange?(self)
            // Whoever was told may have closed the connection meanwhile.
            guard phase == .connecting else { return }
            startAttempt(0)
        case .tryNextHost(let attempt):
            closeHandles()
            startAttempt(attempt)
        case .becomeReady(let watchdogAfter):
            lastHeard = .now
            watchIO()
            watchdog = LoopTimer(loop: loop)
            armWatchdog(after: watchdogAfter)
            onPhaseChange?(self)
        case .armWatchdog(let delay):
            armWatchdog(after: delay)
        case .disconnect(let failing, let message, let delay):
            closeHandles()
            fail(failing, message)
            let timer = LoopTimer(loop: loop)
            timer.start(after: delay) { [self] in
                self.timer?.close()
                self.timer = nil
                connect()
            }
            self.timer = timer
            onPhaseChange?(self)
        case .close(let failing, let message):
            closeHandles()
            fail(failing, message)
            onPhaseChange?(self)
        }
    }

    // MARK: Connecting

    /// Starts connecting (nonblocking); the result arrives through ``onPhaseChange``. The hosts of a multi-host
    /// string are tried one after the other, each within its own time limit (``PostgresHosts``).
    func connect() {
        loop.preconditionInEventLoop()
        perform(machine.connectRequested())
    }

    private func startAttempt(_ attempt: Int) {
        // The string first, expanded; the settings after it override its own: the host of this attempt, then the
        // session options: the string's own, then the driver's, which win where both set one (the statement
        // timeout the answer deadline counts on, and the time zone and date style the decoders read).
        let narrowing = hosts.attempts[attempt]
        let keywords = ["dbname"] + narrowing.map(\.keyword) + ["options", "fallback_application_name"]
        let options = (hosts.sessionOptions.map { $0 + " " } ?? "") + configuration.sessionOptions
        let values = [configuration.url] + narrowing.map(\.value) + [options, "tessera"]
        connection = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in PQconnectStartParams(keywordPointers, valuePointers, 1) }
        }
        guard let connection, PQstatus(connection) != CONNECTION_BAD else {
            return perform(machine.attemptFailed(connectionMessage() ?? "cannot start a connection (out of memory?)"))
        }
        // Server notices (NOTICE, WARNING) would go to stderr unformatted; they carry nothing a request needs.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        let limit = hosts.attemptTimeout(configuration.connectTimeout)
        let timer = LoopTimer(loop: loop)
        timer.start(after: limit) { [self] in
            let host = narrowing.first { $0.keyword == "host" || $0.keyword == "hostaddr" }.map { " to \($0.value)" }
            perform(machine.attemptFailed("connecting\(host ?? "") took longer than \(limit)"))
        }
        self.timer = timer
        continueConnecting(PGRES_POLLING_WRITING)
    }

    private func continueConnecting(_ status: PostgresPollingStatusType) {
        guard phase == .connecting, let connection else { return }
        switch status {
        case PGRES_POLLING_OK:
            timer?.close()
            timer = nil
            guard PQsetnonblocking(connection, 1) == 0, PQenterPipelineMode(connection) == 1 else {
                return perform(machine.connectionLost(connectionMessage() ?? "cannot enter pipeline mode"))
            }
            perform(machine.established())
        case PGRES_POLLING_READING, PGRES_POLLING_WRITING:
            let events: SocketPoll.Events = status == PGRES_POLLING_READING ? .readable : .writable
            watchSocket(events) { [self] in continueConnecting(PQconnectPoll(connection)) }
        default:
            perform(machine.attemptFailed(connectionMessage() ?? "connection failed"))
        }
    }

    /// Checks after `delay` that the oldest request has not waited longer than the answer deadline (the state machine
    /// decides, and drops the connection when it has).
    private func armWatchdog(after delay: Duration) {
        watchdog?.start(after: delay) { [self] in perform(machine.watchdogFired(now: .now)) }
    }

    /// Watches the connection's current socket (libpq may switch sockets while trying several hosts).
    private func watchSocket(_ events: SocketPoll.Events, _ onReady: @escaping () -> Void) {
        guard let connection else { return }
        let descriptor = PQsocket(connection)
        if poll?.descriptor != descriptor {
            poll?.close()
            do {
                poll = try SocketPoll(loop: loop, descriptor: descriptor)
            } catch {
                return perform(machine.connectionLost("cannot watch the database socket: \(error)"))
            }
        }
        poll?.watch(events) { [self] result in
            switch result {
            case .success: onReady()
            case .failure(let error): perform(machine.connectionLost("database socket failed: \(error)"))
            }
        }
    }

    // MARK: Requests

    /// Sends `queries` as one pipelined request ending in a sync, and returns one result per query, or the
    /// first error. The statements run in one implicit transaction unless the caller opened a block.
    func run(_ queries: [PostgresQuery]) async throws(PostgresError) -> [PostgresResult] {
        loop.preconditionInEventLoop()
        // libpq reads text parameters as C strings: a NUL would silently cut a value short. Refuse it, as the
        // server refuses a NUL in text (22021).
        if queries.contains(where: { $0.binds.contains { $0.format == 0 && $0.bytes?.contains(0) == true } }) {
            throw PostgresError(.server, sqlState: "22021", message: "a text parameter holds a NUL character")
        }
        do {
            return try await withCheckedThrowingContinuation { continuation in
                send(queries, continuation: continuation)
            }
        } catch let error as PostgresError {
            throw error
        } catch {
            throw PostgresError(.server, message: "\(error)")
        }
    }

    private func send(_ queries: [PostgresQuery], continuation: CheckedContinuation<[PostgresResult], any Error>) {
        if let reason = machine.unavailableReason {
            return continuation.resume(throwing: PostgresError(.unavailable, message: reason))
        }
        guard let connection else {
            return continuation.resume(throwing: PostgresError(.unavailable, message: machine.lastError))
        }
        var steps: [PendingRequest.Step] = []
        steps.reserveCapacity(2 * queries.count)
        for query in queries {
            let (name, isNew) = machine.statementName(for: query.sql)
            if isNew {
                let types = query.binds.map(\.type)
                guard PQsendPrepare(connection, name, query.sql, Int32(types.count), types) == 1 else {
                    return abandon(continuation, "sending a statement failed")
                }
                steps.append(.prepare(sql: query.sql, named: !name.isEmpty))
            }
            guard sendPrepared(connection, name: name, binds: query.binds) else {
                return abandon(continuation, "sending a statement failed")
            }
            steps.append(.execute)
        }
        guard PQpipelineSync(connection) == 1 else {
            return abandon(continuation, "sending a sync failed")
        }
        machine.requestQueued(PendingRequest(steps: steps, continuation: continuation), sentAt: .now)
        flush()
    }

    /// A request could not be written whole: the pipeline is now in an unknown state, so the request fails and
    /// the connection is dropped (with every request already on it).
    private func abandon(_ continuation: CheckedContinuation<[PostgresResult], any Error>, _ what: String) {
        let message = connectionMessage() ?? what
        continuation.resume(throwing: PostgresError(.unavailable, message: message))
        perform(machine.connectionLost(message))
    }

    private func sendPrepared(_ connection: OpaquePointer, name: String, binds: [PostgresBind]) -> Bool {
        // libpq copies the parameters into its output buffer before PQsendQueryPrepared returns, so they are laid
        // out in scratch memory (on the stack when small) rather than in arrays made for each statement.
        let count = binds.count
        let storageSize = binds.reduce(0) { $0 + ($1.bytes.map { $0.count + 1 } ?? 0) }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: max(storageSize, 1)) { storage in
            withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: max(count, 1)) { values in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(count, 1)) { lengths in
                    withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(count, 1)) { formats in
                        var offset = 0
                        for (index, bind) in binds.enumerated() {
                            formats[index] = bind.format
                            guard let bytes = bind.bytes else {
                                values[index] = nil
                                lengths[index] = 0
                                continue
                            }
                            let start = storage.baseAddress! + offset
                            bytes.withUnsafeBytes { source in
                                guard let base = source.baseAddress else { return }
                                UnsafeMutableRawPointer(start).copyMemory(from: base, byteCount: source.count)
                            }
                            start[bytes.count] = 0
                            values[index] = UnsafePointer(start)
                            lengths[index] = Int32(bytes.count)
                            offset += bytes.count + 1
                        }
                        return PQsendQueryPrepared(
                            connection, name, Int32(count), values.baseAddress, lengths.baseAddress,
                            formats.baseAddress, 0) == 1
                    }
                }
            }
        }
    }

    // MARK: I/O

    private func watchIO() {
        watchSocket(outputPending ? [.readable, .writable] : .readable) { [self] in handleIO() }
    }

    private func handleIO() {
        guard phase == .ready, let connection else { return }
        if outputPending { flush() }
        guard phase == .ready else { return }
        guard PQconsumeInput(connection) == 1 else {
            return perform(machine.connectionLost(connectionMessage() ?? "connection lost"))
        }
        collectResults(connection)
        deliverNotifications(connection)
    }

    /// Hands every notification libpq has read to ``onNotification``.
    private func deliverNotifications(_ connection: OpaquePointer) {
        while let notification = PQnotifies(connection) {
            let channel = String(cString: notification.pointee.relname)
            let payload = String(cString: notification.pointee.extra)
            PQfreemem(notification)
            onNotification?(channel, payload)
        }
    }

    /// Writes buffered output; keeps watching for writability while libpq has more.
    private func flush() {
        guard let connection else { return }
        let status = PQflush(connection)
        guard status >= 0 else {
            return perform(machine.connectionLost(connectionMessage() ?? "write to the database failed"))
        }
        let stillPending = status == 1
        if stillPending != outputPending {
            outputPending = stillPending
            watchIO()
        }
    }

    private func collectResults(_ connection: OpaquePointer) {
        var emptyInARow = 0
        while let request = machine.oldestRequest, PQisBusy(connection) == 0 {
            guard let result = PQgetResult(connection) else {
                emptyInARow += 1
                if emptyInARow > 1 { break }
                continue
            }
            emptyInARow = 0
            lastHeard = .now
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                PQclear(result)
                let preparations = request.complete()
                machine.syncReceived(prepared: preparations.prepared, unprepared: preparations.unprepared)
            } else {
                request.record(result)
            }
        }
    }

    // MARK: Failure and closing

    /// Drops a ready connection that cannot serve its purpose (a `LISTEN` the server refused, a server that stopped
    /// answering another connection), as if it broke: it reconnects with backoff.
    func drop(_ reason: String) {
        loop.preconditionInEventLoop()
        perform(machine.dropRequested(reason))
    }

    /// Closes the connection for good; requests still on it fail as unavailable.
    func close() {
        loop.preconditionInEventLoop()
        perform(machine.closeRequested())
    }

    /// Closes the libpq connection and every handle watching it or timing it.
    private func closeHandles() {
        timer?.close()
        timer = nil
        watchdog?.close()
        watchdog = nil
        poll?.close()
        poll = nil
        if let connection { PQfinish(connection) }
        connection = nil
        outputPending = false
    }

    /// Fails `requests` as unavailable because of `message`.
    private func fail(_ requests: [PendingRequest], _ message: String) {
        for request in requests { request.fail(PostgresError(.unavailable, message: message)) }
    }

    private func connectionMessage() -> String? {
        guard let connection, let message = PQerrorMessage(connection) else { return nil }
        let lines = String(cString: message).split(whereSeparator: \.isNewline)
            .map { $0.drop { $0 == " " || $0 == "\t" } }
        let text = lines.filter { !$0.isEmpty }.joined(separator: " ")
        return text.isEmpty ? nil : text
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { UnsafePointer($0) } + [nil])
}
