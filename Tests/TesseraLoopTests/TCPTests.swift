import Synchronization
import Testing

@testable import TesseraLoop

#if canImport(Glibc)
import Glibc
#endif

/// Echoes what it reads, upper-cased (after the index of its loop and a colon when asked to name it), and closes
/// gracefully on "quit".
final class EchoDelegate: TCPConnectionDelegate {
    let closed: Counter
    let prefix: String
    init(closed: Counter, naming loop: EventLoop? = nil) {
        self.closed = closed
        prefix = loop.map { "\($0.index):" } ?? ""
    }
    func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        connection.write(Array((prefix + text.uppercased()).utf8))
        if text.contains("quit") { connection.close() }
    }
    func connectionDidReachEnd(_ connection: TCPConnection) { connection.close() }
    func connectionDidClose(_ connection: TCPConnection) { closed.add() }
}

/// A blocking client socket for tests, used off the loops.
struct BlockingClient: ~Copyable {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else { throw LoopError("connect", code: -errno) }
    }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// Reads until the peer closes (or the receive timeout passes).
    func readAll() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Gives up the socket without closing it: the caller closes it.
    consuming func release() -> Int32 {
        let descriptor = descriptor
        discard self
        return descriptor
    }

    /// Reads what one reply brings (or nothing when the receive timeout passes).
    func readSome() -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
    }

    deinit { Glibc.close(descriptor) }
}

/// Client sockets kept open against a listener whose connections echo their loop's index, for the tests of where
/// connections land; closed by ``close(_:)``.
final class HeldClients: @unchecked Sendable {
    // Safe to send: the tests use it from one thread at a time.
    private let descriptors: [Int32]
    /// The loop index each connection's echo named, in the order the clients connected.
    let loops: [String]

    private init(descriptors: [Int32], loops: [String]) {
        self.descriptors = descriptors
        self.loops = loops
    }

    /// Connects `count` clients one after the other, each waiting for its echo before the next connects.
    static func connect(_ count: Int, port: Int) async throws -> HeldClients {
        try await Task.detached {
            var descriptors: [Int32] = []
            var loops: [String] = []
            for _ in 0..<count {
                let client = try BlockingClient(port: port)
                client.send("hi")
                loops.append(String(client.readSome().prefix { $0 != ":" }))
                descriptors.append(client.release())
            }
            return HeldClients(descriptors: descriptors, loops: loops)
        }.value
    }

    /// Closes the clients at `positions`.
    func close(_ positions: [Int]) {
        for position in positions { Glibc.close(descriptors[position]) }
    }
}

/// A listener on port 0 for all of `group`'s loops whose connections echo with their loop's index and count their
/// closes in `closed`.
func namingListener(on group: EventLoopGroup, counting closed: Counter) async throws -> UnsafeSendable<TCPListener> {
    try await group.loops[0].submit {
        let listener = try TCPListener(loops: group.loops, host: "127.0.0.1", port: 0) { connection in
            connection.delegate = EchoDelegate(closed: closed, naming: connection.loop)
            connection.startReading()
        }
        return UnsafeSendable(listener)
    }
}

@Suite struct TCPTests {
    /// Connections held open land two on each of two loops; once both of loop 1's close, the next two go there.
    @Test func aListenerGivesEachConnectionToTheLoopWithTheFewestOpen() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let closed = Counter()
        let listener = try await namingListener(on: group, counting: closed)
        let port = listener.value.localPort
        let clients = try await HeldClients.connect(4, port: port)
        #expect(clients.loops.sorted() == ["0", "0", "1", "1"])
        let onLoop1 = clients.loops.indices.filter { clients.loops[$0] == "1" }
        clients.close(onLoop1)
        for _ in 0..<200 where closed.value < 2 { try await group.loops[0].sleep(for: .milliseconds(5)) }
        #expect(try await group.loops[0].submit { listener.value.openConnections } == [2, 0])
        let more = try await HeldClients.connect(2, port: port)
        #expect(more.loops == ["1", "1"])
        clients.close(clients.loops.indices.filter { !onLoop1.contains($0) })
        more.close(Array(more.loops.indices))
        try await group.loops[0].submit { listener.value.close() }
        for _ in 0..<200 where closed.value < 6 { try await group.loops[0].sleep(for: .milliseconds(5)) }
        #expect(closed.value == 6)
        #expect(try await group.loops[0].submit { listener.value.openConnections } == [0, 0])
    }

    /// A socket handed to a loop that has stopped is closed (its client sees the end) and no longer counted.
    @Test func aConnectionForAStoppedLoopIsClosedAndUncounted() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let closed = Counter()
        let listener = try await namingListener(on: group, counting: closed)
        let port = listener.value.localPort
        let first = try await HeldClients.connect(1, port: port)
        #expect(first.loops == ["0"])
        group.loops[1].requestStop()
        let lost = try await Task.detached { () throws -> String in
            let client = try BlockingClient(port: port)
            client.send("anyone")
            return client.readAll()
        }.value
        #expect(lost == "")
        #expect(try await group.loops[0].submit { listener.value.openConnections } == [1, 0])
        first.close([0])
        try await group.loops[0].submit { listener.value.close() }
    }

    /// libuv answers a second uv_read_start with UV_EALREADY: that is no failure, and the connection keeps serving.
    @Test func startingToReadTwiceKeepsTheConnection() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let closed = Counter()
        let listener = try await group.loops[0].submit {
            let listener = try TCPListener(loop: group.loops[0], host: "127.0.0.1", port: 0) { connection in
                connection.delegate = EchoDelegate(closed: closed)
                connection.startReading()
                connection.startReading()
            }
            return UnsafeSendable(listener)
        }
        let port = listener.value.localPort
        let reply = try await Task.detached { () throws -> String in
            let client = try BlockingClient(port: port)
            client.send("twice quit")
            return client.readAll()
        }.value
        #expect(reply == "TWICE QUIT")
        try await group.loops[0].submit { listener.value.close() }
    }

    @Test func aNegativeCodeIsAFailureAndTheRestAreNot() {
        #expect(LoopError.failure(0, "x") == nil)
        #expect(LoopError.failure(7, "x") == nil)
        let failure = LoopError.failure(-ECONNREFUSED, "connect here")
        #expect(failure?.isConnectionRefused == true)
        #expect(failure?.description == "connect here: connection refused")
    }

    /// A second listener on a port one holds fails (with `SO_REUSEPORT` on both, the kernel let them share it).
    @Test func bindingATakenPortFailsClearly() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let (port, failure) = try await group.loops[0].submit { () -> (Int, LoopError?) in
            let holder = try TCPListener(loop: group.loops[0], host: "127.0.0.1", port: 0) { _ in }
            defer { holder.close() }
            do {
                _ = try TCPListener(loop: group.loops[0], host: "127.0.0.1", port: holder.localPort) { _ in }
                return (holder.localPort, nil)
            } catch let error as LoopError {
                return (holder.localPort, error)
            }
        }
        #expect(failure?.isAddressInUse == true)
        #expect(failure?.description.contains("127.0.0.1:\(port)") == true)
    }

    @Test func badAddressesAreRefused() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        for (host, port) in [("not-an-ip", 80), ("127.0.0.1", 70000), ("[::1", 80)] {
            let failed = try await group.loops[0].submit { () -> Bool in
                (try? TCPListener(loop: group.loops[0], host: host, port: port) { _ in }) == nil
            }
            #expect(failed, "\(host):\(port)")
        }
    }
}

/// Carries a loop-confined object through `submit`; the tests touch it only on its loop.
struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A thread-safe counter for tests.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add() { count.add(1, ordering: .relaxed) }
}
