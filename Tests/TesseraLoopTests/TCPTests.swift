import Synchronization
import Testing

@testable import TesseraLoop

#if canImport(Glibc)
import Glibc
#endif

/// Echoes what it reads, upper-cased, and closes gracefully on "quit".
final class EchoDelegate: TCPConnectionDelegate {
    let closed: Counter
    init(closed: Counter) { self.closed = closed }
    func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        connection.write(Array(text.uppercased().utf8))
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

    deinit { Glibc.close(descriptor) }
}

@Suite struct TCPTests {
    @Test func listenersOnEveryLoopShareOnePortAndEchoUntilClosed() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let closed = Counter()
        let first = try await group.loops[0].submit {
            let listener = try TCPListener(loop: group.loops[0], host: "127.0.0.1", port: 0) { connection in
                connection.delegate = EchoDelegate(closed: closed)
                connection.startReading()
            }
            return UnsafeSendable(listener)
        }
        let port = first.value.localPort
        let second = try await group.loops[1].submit {
            let listener = try TCPListener(loop: group.loops[1], host: "127.0.0.1", port: port) { connection in
                connection.delegate = EchoDelegate(closed: closed)
                connection.startReading()
            }
            return UnsafeSendable(listener)
        }
        #expect(second.value.localPort == port)

        let replies = try await Task.detached { () throws -> [String] in
            var replies: [String] = []
            for index in 0..<6 {
                let client = try BlockingClient(port: port)
                client.send("hello \(index) quit")
                replies.append(client.readAll())
            }
            return replies
        }.value
        #expect(replies == (0..<6).map { "HELLO \($0) QUIT" })

        try await group.loops[0].submit { first.value.close() }
        try await group.loops[1].submit { second.value.close() }
        for _ in 0..<100 where closed.value < 6 { try await group.loops[0].sleep(for: .milliseconds(5)) }
        #expect(closed.value == 6)
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

    @Test func bindingATakenPortWithoutReusePortFailsClearly() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let blocker = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(blocker) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(blocker, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        listen(blocker, 1)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(blocker, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let failure = try await group.loops[0].submit { () -> LoopError? in
            do {
                _ = try TCPListener(loop: group.loops[0], host: "127.0.0.1", port: port) { _ in }
                return nil
            } catch let error as LoopError {
                return error
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
