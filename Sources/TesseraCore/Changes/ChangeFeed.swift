import Synchronization
public import TesseraPostgres

/// What a cached kind of row is called in change notices; each module names its own (`ChangeTopic.oauthClients`).
public struct ChangeTopic: Sendable, Hashable {
    /// The name in a notice's payload: letters, digits and `_`.
    public let name: String

    /// A topic named `name` (letters, digits and `_`).
    public init(_ name: String) {
        precondition(
            !name.isEmpty && name.utf8.allSatisfy { $0 == 95 || (48...57).contains($0) || (97...122).contains($0) })
        self.name = name
    }
}

/// Fleet-wide notice that cached rows changed, so that every server may cache what the token path reads.
///
/// A writer adds ``notice(_:key:)`` to the transaction or pipeline that makes the change: PostgreSQL delivers it
/// at commit, to every server's listener, which drops what its caches hold of that key (or of the whole topic).
/// Notices can be lost: a listener that was disconnected hears nothing that committed meanwhile, and a server
/// behind a transaction-pooling proxy cannot listen at all. So every cached value is also re-read once it is older
/// than ``staleness``, and everything cached is dropped each time the listener (re)starts listening: a change
/// applies on every server at once when notices flow, and within ``staleness`` when they do not.
public final class ChangeFeed: Sendable {
    /// The PostgreSQL channel of the notices.
    public static let channel = "tessera_changes"
    /// The longest a cached value is served: the bound on how stale a server may be when it missed a notice.
    public let staleness: Duration
    /// What each topic's notices call, with the key (nil: every key, or a restart of the listener).
    private let subscriptions = Mutex<[ChangeTopic: [@Sendable (String?) -> Void]]>([:])
    private let state = Mutex(ListenerState())

    private struct ListenerState {
        var isListening = false
        var noticesHeard = 0
        var timesListening = 0
    }

    /// A feed whose caches serve a value for at most `staleness`.
    public init(staleness: Duration = .seconds(5)) {
        self.staleness = staleness
    }

    /// The statement that announces a change of `key` in `topic`, or of every key when nil. Run it in the same
    /// transaction or pipeline as the change: it is delivered only if that commits.
    public static func notice(_ topic: ChangeTopic, key: String? = nil) -> PostgresQuery {
        PostgresQuery(noticeStatement, [payload(topic, key: key)])
    }

    /// Runs ``notice(_:key:)`` on `db`: inside its transaction when `db` is one.
    public static func announce(_ topic: ChangeTopic, key: String? = nil, in db: some SQLRunner) async throws {
        try await db.query(noticeStatement, [payload(topic, key: key)])
    }

    private static let noticeStatement = "SELECT pg_notify('\(channel)', $1)"

    private static func payload(_ topic: ChangeTopic, key: String?) -> String {
        key.map { "\(topic.name):\($0)" } ?? topic.name
    }

    /// A cache of values of `topic`, by key, that this feed's notices of `topic` drop key by key and those of
    /// `droppedWholeBy` drop whole (the rows of a deleted tenant's clients go with it, say); at most `capacity` keys
    /// (it starts over when full). `reader` reads a key's value again in the background (``FleetCache``).
    public func cache<Value: Sendable>(
        _ topic: ChangeTopic, droppedWholeBy: [ChangeTopic] = [], capacity: Int = 10_000,
        reader: @escaping FleetCache<Value>.Reader
    ) -> FleetCache<Value> {
        let cache = FleetCache<Value>(staleness: staleness, capacity: capacity, reader: reader)
        onChange(topic) { key in cache.invalidate(key: key) }
        for other in droppedWholeBy { onChange(other) { _ in cache.invalidate(key: nil) } }
        return cache
    }

    /// Calls `handler` with the key of every change of `topic` (nil: every key), whether a notice or a ``drop(_:key:)``,
    /// and with nil each time the listener starts listening again; on the listener's loop or the writer's thread.
    public func onChange(_ topic: ChangeTopic, _ handler: @escaping @Sendable (String?) -> Void) {
        subscriptions.withLock { $0[topic, default: []].append(handler) }
    }

    /// Starts listening on `database` (a session of its own, closed with the client).
    public func start(_ database: PostgresClient) {
        _ = database.listen(channel: Self.channel) { [self] event in hear(event) }
    }

    /// Whether the listener listens now (notices flow); for readiness reports.
    public var isListening: Bool { state.withLock { $0.isListening } }

    /// Notices heard since start; for metrics and tests.
    public var noticesHeard: Int { state.withLock { $0.noticesHeard } }

    /// How many times the listener has started listening (1 after start, one more after each reconnection); for
    /// metrics and tests.
    public var timesListening: Int { state.withLock { $0.timesListening } }

    func hear(_ event: PostgresListener.Event) {
        switch event {
        case .listening:
            state.withLock {
                $0.isListening = true
                $0.timesListening += 1
            }
            for handler in subscriptions.withLock({ $0.values.joined() }) { handler(nil) }
        case .lost:
            state.withLock { $0.isListening = false }
        case .notification(let payload):
            state.withLock { $0.noticesHeard += 1 }
            let (name, key) = Self.parse(payload)
            drop(ChangeTopic(unchecked: name), key: key)
        }
    }

    /// Drops at once, on this server, what its caches hold of `key` in `topic` (of every key when nil). A writer
    /// calls it once its change has committed, so that its own next read sees the change even before the notice
    /// arrives (read your writes); other servers learn of it from the notice.
    public func drop(_ topic: ChangeTopic, key: String? = nil) {
        for handler in subscriptions.withLock({ $0[topic] ?? [] }) { handler(key) }
    }

    /// The topic and key of a payload `topic` or `topic:key` (the key may hold `:`).
    static func parse(_ payload: String) -> (topic: String, key: String?) {
        guard let colon = payload.firstIndex(of: ":") else { return (payload, nil) }
        return (String(payload[..<colon]), String(payload[payload.index(after: colon)...]))
    }
}

extension ChangeTopic {
    /// A topic named by a payload from the database, which may name no topic this server knows.
    fileprivate init(unchecked name: String) { self.name = name }
}
