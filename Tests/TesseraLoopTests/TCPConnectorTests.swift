import Testing

@testable import TesseraLoop

/// Connects with a ``TCPConnector`` on `loop` (cancelling at once when asked) and returns the peer address of the
/// connection, which is then closed, or the error.
private func connect(
    on loop: EventLoop, host: String, port: Int, cancelAtOnce: Bool = false
) async -> Result<String?, LoopError> {
    await withCheckedContinuation { continuation in
        loop.execute {
            let connector = TCPConnector(loop: loop, host: host, port: port)
            connector.start { result in
                switch result {
                case .success(let connection):
                    let peer = connection.remoteAddress
                    connection.abort()
                    continuation.resume(returning: .success(peer))
                case .failure(let error):
                    continuation.resume(returning: .failure(error))
                }
            }
            if cancelAtOnce { connector.cancel() }
        }
    }
}

/// A listener on 127.0.0.1 that accepts and drops connections, and its port.
private func listen(on loop: EventLoop) async throws -> UnsafeSendable<TCPListener> {
    try await loop.submit {
        UnsafeSendable(try TCPListener(loop: loop, host: "127.0.0.1", port: 0) { $0.abort() })
    }
}

@Suite struct TCPConnectorTests {
    @Test func connectsByAddressAndByName() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let listener = try await listen(on: loop)
        let port = listener.value.localPort
        #expect(try await connect(on: loop, host: "127.0.0.1", port: port).get() == "127.0.0.1:\(port)")
        #expect(try await connect(on: loop, host: "localhost", port: port).get() == "127.0.0.1:\(port)")
        _ = try await loop.submit { listener.value.close() }
    }

    @Test func aClosedPortIsRefusedAndAnInvalidNameDoesNotResolve() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let listener = try await listen(on: loop)
        let port = listener.value.localPort
        _ = try await loop.submit { listener.value.close() }

        guard case .failure(let refused) = await connect(on: loop, host: "127.0.0.1", port: port) else {
            Issue.record("connected to a closed port")
            return
        }
        #expect(refused.isConnectionRefused)
        #expect(refused.description == "connect 127.0.0.1:\(port): connection refused")

        guard case .failure(let unresolved) = await connect(on: loop, host: "tessera-test.invalid", port: 80) else {
            Issue.record("resolved an .invalid name")
            return
        }
        #expect(unresolved.isNameResolutionFailure)
        #expect(!unresolved.isConnectionRefused)
        #expect(unresolved.operation == "resolve tessera-test.invalid")
    }

    @Test func aBadPortAndACancelledAttemptFailAtOnce() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        guard case .failure(let badPort) = await connect(on: loop, host: "127.0.0.1", port: 70000) else {
            Issue.record("connected to port 70000")
            return
        }
        #expect(badPort.operation == "connect 127.0.0.1:70000")

        for host in ["127.0.0.1", "localhost"] {
            guard case .failure(let cancelled) = await connect(on: loop, host: host, port: 9, cancelAtOnce: true) else {
                Issue.record("a cancelled attempt to \(host) connected")
                return
            }
            #expect(cancelled.isCancelled)
            #expect(!cancelled.isNameResolutionFailure)
        }
    }
}
