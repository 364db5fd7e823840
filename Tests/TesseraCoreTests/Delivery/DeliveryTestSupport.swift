import Logging
import Synchronization
import TesseraHTTP
import TesseraLoop

/// The requests a test receiver got, in order.
final class ReceivedRequests: Sendable {
    /// One request: its content type and body.
    struct Entry: Sendable {
        let contentType: String?
        let body: [UInt8]
    }

    private let entries = Mutex<[Entry]>([])

    /// Records a request and returns how many were recorded, this one included.
    func record(_ entry: Entry) -> Int {
        entries.withLock {
            $0.append(entry)
            return $0.count
        }
    }

    var all: [Entry] { entries.withLock { $0 } }
}

/// A webhook receiver on loopback: `POST /sms` records each request and answers `statuses[n]` to its n-th request
/// (the last status repeats).
struct WebhookReceiver {
    let group: EventLoopGroup
    let server: HTTPServer
    let received: ReceivedRequests

    /// Starts a receiver at a free port of 127.0.0.1 on its own one-loop group.
    static func start(statuses: [Int]) async throws -> WebhookReceiver {
        let group = try EventLoopGroup(loopCount: 1)
        let received = ReceivedRequests()
        var router = HTTPRouter()
        router.on(
            .post, "/sms",
            immediate: { request in
                let count = received.record(.init(contentType: request.headers["Content-Type"], body: request.body))
                return HTTPResponse.text("ok", status: HTTPStatus(code: statuses[min(count, statuses.count) - 1]))
            })
        let server = HTTPServer(
            name: "sms-receiver", loops: group.loops, host: "127.0.0.1", port: 0, router: router,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        do {
            try await server.start()
        } catch {
            group.shutdown()
            throw error
        }
        return WebhookReceiver(group: group, server: server, received: received)
    }

    var url: String { "http://127.0.0.1:\(server.port)/sms" }

    func stop() async {
        await server.shutdown(gracePeriod: .seconds(1))
        group.shutdown()
    }
}

/// A TCP server on loopback that accepts connections, reads what they send and never answers.
final class SilentReceiver: Sendable {
    let group: EventLoopGroup
    let port: Int
    /// How many connections it accepted.
    let accepted: ConnectionCounter
    private let listener: LoopConfined<TCPListener>

    private init(group: EventLoopGroup, listener: LoopConfined<TCPListener>, accepted: ConnectionCounter) {
        self.group = group
        self.listener = listener
        self.accepted = accepted
        port = listener.value.localPort
    }

    /// Starts listening at a free port of 127.0.0.1 on its own one-loop group.
    static func start() async throws -> SilentReceiver {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let accepted = ConnectionCounter()
        let listener = try await loop.submit {
            let listener = try TCPListener(loop: loop, host: "127.0.0.1", port: 0) { connection in
                accepted.increment()
                connection.delegate = SilentConnection()
                connection.startReading()
            }
            return LoopConfined(listener)
        }
        return SilentReceiver(group: group, listener: listener, accepted: accepted)
    }

    var url: String { "http://127.0.0.1:\(port)/sms" }

    func stop() async {
        let listener = listener
        _ = try? await group.loops[0].submit { listener.value.close() }
        group.shutdown()
    }
}

/// Counts accepted connections.
final class ConnectionCounter: Sendable {
    private let count = Atomic(0)
    func increment() { count.add(1, ordering: .sequentiallyConsistent) }
    var total: Int { count.load(ordering: .sequentiallyConsistent) }
}

/// Moves an object confined to one loop out of `submit`; the tests touch it only on that loop afterwards.
struct LoopConfined<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A connection that reads and ignores everything, and closes when the peer does.
private final class SilentConnection: TCPConnectionDelegate {
    func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {}
    func connectionDidReachEnd(_ connection: TCPConnection) { connection.close() }
    func connectionDidClose(_ connection: TCPConnection) {}
}
