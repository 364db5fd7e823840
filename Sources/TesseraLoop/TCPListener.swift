internal import CLibUV

#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on one loop; use it only on that loop's thread.
///
/// The socket has `SO_REUSEPORT`, so every loop of a group can bind its own listener on the same address
/// and the kernel balances new connections between them.
public final class TCPListener {
    private let handle: UnsafeMutablePointer<uv_tcp_t>
    private let loop: EventLoop
    private let onAccept: (TCPConnection) -> Void
    private var closed = false
    /// The port the socket is bound to (useful after binding port 0).
    public let localPort: Int

    /// Binds `host:port` (a numeric IPv4 or IPv6 address) and starts accepting; each accepted connection is
    /// handed to `onAccept`, not yet reading.
    public init(
        loop: EventLoop, host: String, port: Int, backlog: Int32 = 1024,
        onAccept: @escaping (TCPConnection) -> Void
    ) throws(LoopError) {
        loop.preconditionInEventLoop()
        self.loop = loop
        self.onAccept = onAccept
        (handle, localPort) = try Self.bind(loop: loop, host: host, port: port, backlog: backlog)
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Creates the socket, sets `SO_REUSEPORT`, binds and listens; returns the handle and the bound port.
    private static func bind(
        loop: EventLoop, host: String, port: Int, backlog: Int32
    ) throws(LoopError) -> (UnsafeMutablePointer<uv_tcp_t>, Int) {
        var address = try SocketAddress.make(host: host, port: port)
        let handle = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
        handle.initialize(to: uv_tcp_t())
        let stream = UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_stream_t.self)
        let family = UInt32(address.ss_family)
        if let error = LoopError.failure(uv_tcp_init_ex(loop.uvLoop, handle, family), "socket \(host):\(port)") {
            handle.deallocate()
            throw error
        }
        var bound = sockaddr_storage()
        do {
            let operation = "listen on \(host):\(port)"
            var descriptor = uv_os_fd_t()
            try LoopError.check(
                uv_fileno(UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_handle_t.self), &descriptor),
                operation)
            try LoopError.check(tessera_set_reuseport(descriptor) == 0 ? 0 : -errno, operation)
            try LoopError.check(
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_bind(handle, $0, 0) }
                }, operation)
            try LoopError.check(
                uv_listen(stream, backlog) { server, status in
                    guard LoopError.failure(status, "listen") == nil, let server, let data = server.pointee.data else {
                        return
                    }
                    Unmanaged<TCPListener>.fromOpaque(data).takeUnretainedValue().accept(from: server)
                }, operation)
            var length = Int32(MemoryLayout<sockaddr_storage>.size)
            try LoopError.check(
                withUnsafeMutablePointer(to: &bound) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getsockname(handle, $0, &length) }
                }, operation)
        } catch {
            handle.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { uv_close($0, freeHandle) }
            throw error
        }
        return (handle, SocketAddress.port(bound))
    }

    private func accept(from server: UnsafeMutablePointer<uv_stream_t>) {
        guard !closed else { return }
        let client = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
        client.initialize(to: uv_tcp_t())
        // A handle libuv did not initialize must not reach uv_close.
        guard LoopError.failure(uv_tcp_init(loop.uvLoop, client), "accept") == nil else {
            client.deallocate()
            return
        }
        let status = client.withMemoryRebound(to: uv_stream_t.self, capacity: 1) { uv_accept(server, $0) }
        guard LoopError.failure(status, "accept") == nil else {
            client.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { uv_close($0, freeHandle) }
            return
        }
        uv_tcp_nodelay(client, 1)
        onAccept(TCPConnection(loop: loop, handle: client))
    }

    /// Stops accepting and releases the socket; connections already accepted are not affected.
    public func close() {
        guard !closed else { return }
        closed = true
        handle.pointee.data = nil
        handle.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { uv_close($0, freeHandle) }
    }

    deinit { close() }
}
