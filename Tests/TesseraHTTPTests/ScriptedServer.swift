import Synchronization
import TesseraHTTP
import TesseraLoop

/// What a ``ScriptedServer`` does once a whole request has arrived.
enum ScriptedReply: Sendable {
    /// Writes these bytes, then closes the connection when `close` is true.
    case send(String, close: Bool)
    /// Writes these bytes in pieces, one loop turn apart, then closes.
    case sendPieces([String])
    /// Never answers and never closes: a server that hangs.
    case silence
}

/// A raw TCP server on a one-loop group that answers each request with scripted bytes, for responses the repo's
/// HTTPServer never produces (chunked, delimited by the end of the connection, malformed) and for a server that
/// never answers. It records the requests it received, as text.
final class ScriptedServer: Sendable {
    let group: EventLoopGroup
    let port: Int
    private let listener: UnsafeTransfer<TCPListener>
    private let log: RequestLog

    /// Starts listening on 127.0.0.1 at a free port; `reply` chooses the answer for each request (its text).
    static func start(_ reply: @escaping @Sendable (String) -> ScriptedReply) async throws -> ScriptedServer {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let log = RequestLog()
        let listener = try await loop.submit {
            let listener = try TCPListener(loop: loop, host: "127.0.0.1", port: 0) { connection in
                connection.delegate = ScriptedConnection(reply: reply, log: log)
                connection.startReading()
            }
            return UnsafeTransfer(listener)
        }
        return ScriptedServer(group: group, listener: listener, log: log)
    }

    private init(group: EventLoopGroup, listener: UnsafeTransfer<TCPListener>, log: RequestLog) {
        self.group = group
        self.listener = listener
        self.log = log
        port = listener.value.localPort
    }

    /// The requests received so far.
    var requests: [String] { log.entries }

    var url: String { "http://127.0.0.1:\(port)" }

    func stop() async {
        let listener = listener
        _ = try? await group.loops[0].submit { listener.value.close() }
        group.shutdown()
    }
}

/// Moves a loop-confined object out of `submit`; the tests touch it only on its loop afterwards.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Requests as text, in the order they arrived.
final class RequestLog: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ entry: String) { storage.withLock { $0.append(entry) } }
    var entries: [String] { storage.withLock { $0 } }
}

/// One connection of a ``ScriptedServer``: collects the request head and a Content-Length body, then replies.
private final class ScriptedConnection: TCPConnectionDelegate {
    let reply: @Sendable (String) -> ScriptedReply
    let log: RequestLog
    var buffer: [UInt8] = []
    var answered = false

    init(reply: @escaping @Sendable (String) -> ScriptedReply, log: RequestLog) {
        self.reply = reply
        self.log = log
    }

    func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        guard !answered else { return }
        buffer.append(contentsOf: bytes)
        let text = String(decoding: buffer, as: UTF8.self)
        guard let headEnd = text.firstRange(of: "\r\n\r\n") else { return }
        let head = text[..<headEnd.lowerBound].lowercased()
        let declared =
            head.split(separator: "\r\n")
            .first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingPrefix(" ")) } ?? 0
        guard text.utf8.count - text[..<headEnd.upperBound].utf8.count >= declared else { return }
        answered = true
        log.append(text)
        switch reply(text) {
        case .send(let response, let close):
            connection.write(Array(response.utf8))
            if close { connection.close() }
        case .sendPieces(let pieces):
            send(pieces[...], on: connection)
        case .silence:
            break
        }
    }

    private func send(_ pieces: ArraySlice<String>, on connection: TCPConnection) {
        guard let first = pieces.first else { return connection.close() }
        connection.write(Array(first.utf8))
        let timer = LoopTimer(loop: connection.loop)
        timer.start(after: .milliseconds(5)) { [self] in
            timer.close()
            send(pieces.dropFirst(), on: connection)
        }
    }

    func connectionDidReachEnd(_ connection: TCPConnection) { connection.close() }
    func connectionDidClose(_ connection: TCPConnection) {}
}
