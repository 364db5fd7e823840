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
/// and the connection reconnects by itself, with exponential backoff.
final class PostgresConnection: @unchecked Sendable {
    /// Where the connection is in its life.
    enum Phase: Equatable {
        /// Not connected; a reconnect may be scheduled.
        case disconnected
        /// `PQconnectPoll` is in progress.
        case connecting
        /// Connected in pipeline mode and accepting requests.
        case ready
        /// Closed for good.
        case closed
    }

    let loop: EventLoop
    private let configuration: PostgresConfiguration
    /// The hosts of the connection string, tried one at a time.
    private let hosts: PostgresHosts
    /// The attempt in progress while connecting (an index into `hosts.attempts`).
    private var attempt = 0
    /// Why each earlier attempt of this connect failed.
    private var attemptFailures: [String] = []
    /// When the server last answered on this connection (or the connection was made).
    private(set) var lastHeard = ContinuousClock.now
    /// When the request the server left unanswered past the deadline was sent, when that is why the connection was
    /// dropped; the pool then drops its idle connections that have heard nothing since (``PostgresPool``).
    private(set) var unansweredSince: ContinuousClock.Instant?
    private(set) var phase = Phase.disconnected
    /// Why the last connection attempt or connection failed.
    private(set) var lastError = "not connected yet"
    /// Called after every phase change; the pool tracks readiness and waiters with it.
    var onPhaseChange: ((PostgresConnection) -> Void)?
    /// Called with the payload of every `NOTIFY` the connection receives for a channel it listens on.
    var onNotification: ((_ channel: String, _ payload: String) -> Void)?

    private var connection: OpaquePointer?
    private var poll: SocketPoll?
    private var timer: LoopTimer?
    /// Checks, while the connection is ready, that the oldest request has not waited past its deadline.
    private var watchdog: LoopTimer?
    private var inFlight: [PendingRequest] = []
    private var inFlightHead = 0
    private var preparedNames: [String: String] = [:]
    private var nextStatementNumber = 0
    private var failedAttempts = 0
    private var outputPending = false

    init(loop: EventLoop, configuration: PostgresConfiguration) {
        self.loop = loop
        self.configuration = configuration
        hosts = PostgresHosts(conninfo: configuration.url)
    }

    /// Requests sent and not yet answered.
    var pendingCount: Int { inFlight.count - inFlightHead }

    /// Whether the connection has never been ready and its last attempt failed.
    var hasFailedSinceStart: Bool { phase == .disconnected && failedAttempts > 0 && !everReady }
    private var everReady = false

    // MARK: Connecting

    /// Starts connecting (nonblocking); the result arrives through ``onPhaseChange``. The hosts of a multi-host
    /// string are tried one after the other, each within its own time limit (``PostgresHosts``).
    func connect() {
        loop.preconditionInEventLoop()
        guard phase == .disconnected else { return }
        unansweredSince = nil
        setPhase(.connecting)
        attempt = 0
        attemptFailures = []
        startAttempt()
    }

    private func startAttempt() {
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
            return attemptFailed(connectionMessage() ?? "cannot start a connection (out of memory?)")
        }
        // Server notices (NOTICE, WARNING) would go to stderr unformatted; they carry nothing a request needs.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        let limit = hosts.attemptTimeout(configuration.connectTimeout)
        let timer = LoopTimer(loop: loop)
        timer.start(after: limit) { [self] in
            let host = narrowing.first { $0.keyword == "host" || $0.keyword == "hostaddr" }.map { " to \($0.value)" }
            attemptFailed("connecting\(host ?? "") took longer than \(limit)")
        }
        self.timer = timer
        continueConnecting(PGRES_POLLING_WRITING)
    }

    /// Ends the current attempt; tries the next host, or, after the last, gives up until the next reconnect.
    private func attemptFailed(_ message: String) {
        guard phase == .connecting else { return }
        attemptFailures.append(message)
        guard attempt + 1 < hosts.attempts.count else {
            return lose(attemptFailures.joined(separator: "; "))
        }
        timer?.close()
        timer = nil
        poll?.close()
        poll = nil
        if let connection { PQfinish(connection) }
        connection = nil
        attempt += 1
        startAttempt()
    }

    private func continueConnecting(_ status: PostgresPollingStatusType) {
        guard phase == .connecting, let connection else { return }
        switch status {
        case PGRES_POLLING_OK:
            established(connection)
        case PGRES_POLLING_READING, PGRES_POLLING_WRITING:
            let events: SocketPoll.Events = status == PGRES_POLLING_READING ? .readable : .writable
            watchSocket(events) { [self] in continueConnecting(PQconnectPoll(connection)) }
        default:
            attemptFailed(connectionMessage() ?? "connection failed")
        }
    }

    private func established(_ connection: OpaquePointer) {
        timer?.close()
        timer = nil
        guard PQsetnonblocking(connection, 1) == 0, PQenterPipelineMode(connection) == 1 else {
            return lose(connectionMessage() ?? "cannot enter pipeline mode")
        }
        failedAttempts = 0
        everReady = true
        lastHeard = .now
        setPhase(.ready)
        watchIO()
        let watchdog = LoopTimer(loop: loop)
        self.watchdog = watchdog
        armWatchdog()
    }

    /// Drops the connection when its oldest request has waited longer than the answer deadline: the
    /// server stopped answering without closing the socket, and `statement_timeout` cannot help then.
    private func armWatchdog() {
        let period = min(configuration.answerDeadline / 4, .seconds(1))
        watchdog?.start(after: period) { [self] in
            guard phase == .ready else { return }
            if inFlightHead < inFlight.count,
                ContinuousClock.now - inFlight[inFlightHead].sentAt > configuration.answerDeadline
            {
                unansweredSince = inFlight[inFlightHead].sentAt
                return lose("the database did not answer within \(configuration.answerDeadline)")
            }
            armWatchdog()
        }
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
                return lose("cannot watch the database socket: \(error)")
            }
        }
        poll?.watch(events) { [self] result in
            switch result {
            case .success: onReady()
            case .failure(let error): lose("database socket failed: \(error)")
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
        guard phase == .ready, let connection else {
            return continuation.resume(throwing: PostgresError(.unavailable, message: lastError))
        }
        var steps: [PendingRequest.Step] = []
        for query in queries {
            let name: String
            if let known = preparedNames[query.sql] {
                name = known
            } else {
                name = "t\(nextStatementNumber)"
                nextStatementNumber += 1
                let types = query.binds.map(\.type)
                guard PQsendPrepare(connection, name, query.sql, Int32(types.count), types) == 1 else {
                    return abandon(continuation, "sending a statement failed")
                }
                preparedNames[query.sql] = name
                steps.append(.prepare(sql: query.sql))
            }
            guard sendPrepared(connection, name: name, binds: query.binds) else {
                return abandon(continuation, "sending a statement failed")
            }
            steps.append(.execute)
        }
        guard PQpipelineSync(connection) == 1 else {
            return abandon(continuation, "sending a sync failed")
        }
        inFlight.append(PendingRequest(steps: steps, continuation: continuation))
        flush()
    }

    /// A request could not be written whole: the pipeline is now in an unknown state, so the request fails and
    /// the connection is dropped (with every request already on it).
    private func abandon(_ continuation: CheckedContinuation<[PostgresResult], any Error>, _ what: String) {
        let message = connectionMessage() ?? what
        continuation.resume(throwing: PostgresError(.unavailable, message: message))
        lose(message)
    }

    private func sendPrepared(_ connection: OpaquePointer, name: String, binds: [PostgresBind]) -> Bool {
        var storage: [UInt8] = []
        var offsets: [Int?] = []
        for bind in binds {
            if let bytes = bind.bytes {
                offsets.append(storage.count)
                storage += bytes
                storage.append(0)
            } else {
                offsets.append(nil)
            }
        }
        let lengths = binds.map { Int32($0.bytes?.count ?? 0) }
        let formats = binds.map(\.format)
        return storage.withUnsafeBufferPointer { buffer -> Bool in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in offset.flatMap { base?.advanced(by: $0) } }
            return PQsendQueryPrepared(connection, name, Int32(binds.count), values, lengths, formats, 0) == 1
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
        guard PQconsumeInput(connection) == 1 else { return lose(connectionMessage() ?? "connection lost") }
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
        guard status >= 0 else { return lose(connectionMessage() ?? "write to the database failed") }
        let stillPending = status == 1
        if stillPending != outputPending {
            outputPending = stillPending
            watchIO()
        }
    }

    private func collectResults(_ connection: OpaquePointer) {
        var emptyInARow = 0
        while inFlightHead < inFlight.count, PQisBusy(connection) == 0 {
            guard let result = PQgetResult(connection) else {
                emptyInARow += 1
                if emptyInARow > 1 { break }
                continue
            }
            emptyInARow = 0
            lastHeard = .now
            let request = inFlight[inFlightHead]
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                PQclear(result)
                inFlightHead += 1
                if inFlightHead == inFlight.count {
                    inFlight.removeAll(keepingCapacity: true)
                    inFlightHead = 0
                }
                for sql in request.complete() { preparedNames[sql] = nil }
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
        guard phase == .ready else { return }
        lose(reason)
    }

    /// Drops the connection: fails every request on it, and schedules a reconnect unless closed.
    private func lose(_ message: String) {
        guard phase != .closed else { return }
        lastError = message
        tearDown()
        failedAttempts += 1
        setPhase(.disconnected)
        let timer = LoopTimer(loop: loop)
        timer.start(after: configuration.backoff(attempt: failedAttempts - 1)) { [self] in
            self.timer?.close()
            self.timer = nil
            connect()
        }
        self.timer = timer
    }

    /// Closes the connection for good; requests still on it fail as unavailable.
    func close() {
        loop.preconditionInEventLoop()
        guard phase != .closed else { return }
        lastError = "the database client is shutting down"
        tearDown()
        setPhase(.closed)
    }

    private func tearDown() {
        timer?.close()
        timer = nil
        watchdog?.close()
        watchdog = nil
        poll?.close()
        poll = nil
        if let connection { PQfinish(connection) }
        connection = nil
        preparedNames = [:]
        outputPending = false
        let failed = inFlight[inFlightHead...]
        inFlight = []
        inFlightHead = 0
        for request in failed { request.fail(PostgresError(.unavailable, message: lastError)) }
    }

    private func setPhase(_ phase: Phase) {
        self.phase = phase
        onPhaseChange?(self)
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
