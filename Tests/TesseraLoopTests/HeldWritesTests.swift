import Synchronization
import Testing

@testable import TesseraLoop

/// Writes three pieces for every read, each with a completion that records whether it was sent, records when the
/// read returns, and then ends the connection (``ending``); a read of "later" writes from the loop's queue instead,
/// outside any read.
final class WritingProbe: TCPConnectionDelegate, Sendable {
    enum Ending: Sendable { case close, abort }
    let ending: Ending
    let events = Mutex<[String]>([])
    init(ending: Ending) { self.ending = ending }

    func record(_ event: String) { events.withLock { $0.append(event) } }

    func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        if String(decoding: bytes, as: UTF8.self) == "later" {
            let held = UnsafeSendable(connection)
            connection.loop.execute {
                held.value.write(Array("queued".utf8)) { self.record("queued sent: \($0)") }
                self.record("write returned")
                held.value.close()
            }
            return
        }
        for piece in ["one ", "two ", "three"] {
            connection.write(Array(piece.utf8)) { self.record("\(piece) sent: \($0)") }
        }
        record("read returned")
        switch ending {
        case .close: connection.close()
        case .abort: connection.abort()
        }
    }
    func connectionDidReachEnd(_ connection: TCPConnection) { connection.close() }
    func connectionDidClose(_ connection: TCPConnection) {}
}

/// What a connection writes while it reads waits for the turn's socket callbacks to end, then goes out in one piece.
@Suite struct HeldWritesTests {
    /// Serves one connection with `probe` and returns what a client sending `request` reads until the end.
    func exchange(_ request: String, with probe: WritingProbe) async throws -> String {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let listener = try await group.loops[0].submit {
            let listener = try TCPListener(loop: group.loops[0], host: "127.0.0.1", port: 0) { connection in
                connection.delegate = probe
                connection.startReading()
            }
            return UnsafeSendable(listener)
        }
        let port = listener.value.localPort
        let reply = try await Task.detached { () throws -> String in
            let client = try BlockingClient(port: port)
            client.send(request)
            return client.readAll()
        }.value
        try await group.loops[0].submit { listener.value.close() }
        return reply
    }

    /// The three writes of one read leave after the read returns, in order, and each completion learns they were
    /// sent; a close made in the read waits for them.
    @Test func writesMadeWhileReadingGoOutAfterTheReadInOrder() async throws {
        let probe = WritingProbe(ending: .close)
        let reply = try await exchange("hello", with: probe)
        #expect(reply == "one two three")
        #expect(
            probe.events.withLock { $0 } == [
                "read returned", "one  sent: true", "two  sent: true", "three sent: true",
            ])
    }

    /// A connection aborted in the read that wrote sends nothing of it, and every completion learns so.
    @Test func writesHeldByAnAbortedConnectionAreNotSent() async throws {
        let probe = WritingProbe(ending: .abort)
        let reply = try await exchange("hello", with: probe)
        #expect(reply == "")
        #expect(
            probe.events.withLock { $0 } == [
                "read returned", "one  sent: false", "two  sent: false", "three sent: false",
            ])
    }

    /// A write made outside a read is not held: it is tried on the socket before it returns.
    @Test func aWriteOutsideAReadGoesAtOnce() async throws {
        let probe = WritingProbe(ending: .close)
        let reply = try await exchange("later", with: probe)
        #expect(reply == "queued")
        #expect(probe.events.withLock { $0 } == ["queued sent: true", "write returned"])
    }
}
