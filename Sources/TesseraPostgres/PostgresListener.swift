public import TesseraLoop

/// A database session of its own that `LISTEN`s on one channel and reports what it hears; use it only on its
/// loop's thread.
///
/// PostgreSQL delivers a `NOTIFY` only to sessions listening when it commits, so a listener that was disconnected
/// has missed an unknown number of them: it reports ``Event/lost`` when its session breaks and
/// ``Event/listening`` each time it listens again (first start included), after which whoever caches what the
/// notifications describe must treat everything cached as stale. The session reconnects by itself, with the
/// configuration's backoff.
public final class PostgresListener: @unchecked Sendable {
    /// What the listener reports, on its loop.
    public enum Event: Sendable, Equatable {
        /// The session listens (again): notifications committed before this may have been missed.
        case listening
        /// A notification's payload.
        case notification(String)
        /// The session broke: notifications are missed until the next ``listening``.
        case lost
    }

    /// The loop the session runs on.
    public let loop: EventLoop
    /// The channel listened on.
    public let channel: String
    private let connection: PostgresConnection
    private let onEvent: (Event) -> Void
    private var isListening = false
    private let probeInterval: Duration
    /// Sends the periodic probe while the session listens.
    private var probe: LoopTimer?

    /// A listener on `channel` (a lower-case SQL identifier: letters, digits and `_`) that reports to `onEvent` on
    /// `loop`; nothing connects until ``start()``.
    public init(
        configuration: PostgresConfiguration, loop: EventLoop, channel: String,
        onEvent: @escaping (Event) -> Void
    ) {
        precondition(
            !channel.isEmpty && channel.utf8.count <= 63 && channel.utf8.first.map { !(48...57).contains($0) } == true
                && channel.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 },
            "a channel is a lower-case SQL identifier")
        self.loop = loop
        self.channel = channel
        self.onEvent = onEvent
        probeInterval = configuration.idleProbeInterval
        connection = PostgresConnection(loop: loop, configuration: configuration)
    }

    /// Connects and listens; reconnects and listens again after every break.
    public func start() {
        loop.preconditionInEventLoop()
        connection.onNotification = { [unowned self] channel, payload in
            if isListening, channel == self.channel { onEvent(.notification(payload)) }
        }
        connection.onPhaseChange = { [unowned self] connection in
            if connection.phase == .ready {
                listen()
            } else {
                probe?.stop()
                if isListening {
                    isListening = false
                    onEvent(.lost)
                }
            }
        }
        probe = LoopTimer(loop: loop)
        connection.connect()
    }

    /// Stops listening for good.
    public func close() {
        loop.preconditionInEventLoop()
        connection.onPhaseChange = nil
        connection.onNotification = nil
        isListening = false
        probe?.close()
        probe = nil
        connection.close()
    }

    private func listen() {
        Task(executorPreference: loop) { [self] in
            do {
                _ = try await connection.run([PostgresQuery("LISTEN \(channel)")])
            } catch {
                // The server refused it (a standby cannot LISTEN, when the string allows a standby): a while later,
                // drop the session, which reconnects, perhaps elsewhere, and tries again. Otherwise the session
                // broke again (it reconnects by itself) or is closing.
                if connection.phase == .ready {
                    probe?.start(after: probeInterval) { [self] in connection.drop("LISTEN failed: \(error)") }
                }
                return
            }
            guard connection.phase == .ready, !isListening else { return }
            isListening = true
            onEvent(.listening)
            armProbe()
        }
    }

    /// A session that only listens sends nothing, so a server that stops answering without closing the socket (a
    /// hung primary, a machine gone from the network) would leave it listening to nobody, for good. A trivial query
    /// every ``PostgresConfiguration/idleProbeInterval`` lets the connection's answer deadline drop it; it then
    /// reconnects (to the promoted standby, after a failover) and listens again.
    private func armProbe() {
        probe?.start(after: probeInterval) { [self] in
            guard isListening, connection.phase == .ready else { return }
            Task(executorPreference: loop) { [self] in
                // A failure is the connection's to report (it breaks, and the phase change says so).
                _ = try? await connection.run([PostgresQuery("SELECT 1")])
                guard isListening, connection.phase == .ready else { return }
                armProbe()
            }
        }
    }
}
