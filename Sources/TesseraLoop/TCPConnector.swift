internal import CLibUV

#if canImport(Glibc)
import Glibc
#endif

/// Opens one outgoing TCP connection; use it only on its loop's thread.
///
/// A host name is resolved with `uv_getaddrinfo`, which runs on libuv's thread pool, so the loop never blocks on
/// DNS; a numeric IPv4 or IPv6 address (brackets allowed) skips resolution. The addresses are tried in the order
/// the resolver returned them until one accepts. The completion runs exactly once, on the loop thread: with the
/// connected ``TCPConnection`` (not yet reading), or with the ``LoopError`` of the last failure: a resolution error
/// (``LoopError/isNameResolutionFailure``), a refusal (``LoopError/isConnectionRefused``) or another socket error.
/// ``cancel()`` ends the attempt at once; the completion then reports a cancellation (``LoopError/isCancelled``).
///
/// The connector keeps itself alive while a resolution or a connect is in flight, so the owner needs no other
/// reference once it has called ``start(_:)``.
public final class TCPConnector {
    /// Where the attempt stands.
    private enum Stage {
        /// ``start(_:)`` was not called yet.
        case created
        /// Waiting for `uv_getaddrinfo`.
        case resolving(UnsafeMutablePointer<uv_getaddrinfo_t>)
        /// Waiting for `uv_tcp_connect` on this handle, to this address.
        case connecting(UnsafeMutablePointer<uv_tcp_t>, address: String)
        /// The completion has run; callbacks still in flight only release their requests.
        case finished
    }

    /// The loop the connection will belong to.
    public let loop: EventLoop
    /// The host name or numeric address to connect to, as given.
    public let host: String
    /// The port to connect to.
    public let port: Int

    private var stage = Stage.created
    private var completion: ((Result<TCPConnection, LoopError>) -> Void)?
    private var candidates: [sockaddr_storage] = []
    private var lastError: LoopError?

    /// Creates a connector for `host:port` on `loop`; nothing happens until ``start(_:)``.
    public init(loop: EventLoop, host: String, port: Int) {
        loop.preconditionInEventLoop()
        self.loop = loop
        self.host = host
        self.port = port
    }

    /// Resolves the host and connects; `completion` runs once on the loop thread. A second call does nothing.
    public func start(_ completion: @escaping (Result<TCPConnection, LoopError>) -> Void) {
        loop.preconditionInEventLoop()
        guard case .created = stage else { return }
        self.completion = completion
        guard (0...65535).contains(port) else {
            return finish(.failure(LoopError("connect \(host):\(port)", code: UV_EINVAL.rawValue)))
        }
        if let numeric = try? SocketAddress.make(host: host, port: port) {
            candidates = [numeric]
            return connectNext()
        }
        resolve()
    }

    /// Gives up: closes a socket being connected, cancels a resolution when libuv still can, and completes with a
    /// cancellation error unless the attempt had already completed.
    public func cancel() {
        loop.preconditionInEventLoop()
        switch stage {
        case .created:
            stage = .finished
        case .resolving(let request):
            request.withMemoryRebound(to: uv_req_t.self, capacity: 1) { _ = uv_cancel($0) }
            finish(.failure(LoopError("resolve \(host)", code: UV_ECANCELED.rawValue)))
        case .connecting(let handle, let address):
            handle.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { uv_close($0, freeHandle) }
            finish(.failure(LoopError("connect \(address)", code: UV_ECANCELED.rawValue)))
        case .finished:
            break
        }
    }

    private func resolve() {
        let request = UnsafeMutablePointer<uv_getaddrinfo_t>.allocate(capacity: 1)
        request.initialize(to: uv_getaddrinfo_t())
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        let status = uv_getaddrinfo(
            loop.uvLoop, request,
            { request, status, results in
                guard let request, let data = request.pointee.data else { return }
                let connector = Unmanaged<TCPConnector>.fromOpaque(data).takeRetainedValue()
                request.deallocate()
                connector.resolved(status: status, results: results)
            }, host, "\(port)", &hints)
        if let error = LoopError.failure(status, "resolve \(host)") {
            Unmanaged<TCPConnector>.fromOpaque(request.pointee.data).release()
            request.deallocate()
            return finish(.failure(error))
        }
        stage = .resolving(request)
    }

    private func resolved(status: Int32, results: UnsafeMutablePointer<addrinfo>?) {
        defer { if let results { uv_freeaddrinfo(results) } }
        guard case .resolving = stage else { return }
        if let error = LoopError.failure(status, "resolve \(host)") { return finish(.failure(error)) }
        var entry = results
        while let current = entry {
            let length = Int(current.pointee.ai_addrlen)
            if let address = current.pointee.ai_addr, length <= MemoryLayout<sockaddr_storage>.size {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: length))
                }
                candidates.append(storage)
            }
            entry = current.pointee.ai_next
        }
        guard !candidates.isEmpty else {
            return finish(.failure(LoopError("resolve \(host)", code: UV_EAI_NODATA.rawValue)))
        }
        connectNext()
    }

    /// Connects to the next candidate address, or completes with the last error when none is left.
    private func connectNext() {
        guard !candidates.isEmpty else {
            return finish(.failure(lastError ?? LoopError("connect \(host):\(port)", code: UV_EAI_NODATA.rawValue)))
        }
        var address = candidates.removeFirst()
        let description = SocketAddress.describe(address) ?? "\(host):\(port)"
        let handle = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
        handle.initialize(to: uv_tcp_t())
        if let error = LoopError.failure(uv_tcp_init(loop.uvLoop, handle), "socket for \(description)") {
            handle.deallocate()
            return finish(.failure(error))
        }
        let request = UnsafeMutablePointer<uv_connect_t>.allocate(capacity: 1)
        request.initialize(to: uv_connect_t())
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        let status = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                uv_tcp_connect(request, handle, address) { request, status in
                    guard let request, let data = request.pointee.data else { return }
                    let connector = Unmanaged<TCPConnector>.fromOpaque(data).takeRetainedValue()
                    request.deallocate()
                    connector.connected(status: status)
                }
            }
        }
        if let error = LoopError.failure(status, "connect \(description)") {
            Unmanaged<TCPConnector>.fromOpaque(request.pointee.data).release()
            request.deallocate()
            handle.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { uv_close($0, freeHandle) }
            lastError = error
            return connectNext()
        }
        stage = .connecting(handle, address: description)
    }

    private func connected(status: Int32) {
        guard case .connecting(let handle, let address) = stage else { return }
        if let error = LoopError.failure(status, "connect \(address)") {
            handle.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { uv_close($0, freeHandle) }
            lastError = error
            return connectNext()
        }
        uv_tcp_nodelay(handle, 1)
        finish(.success(TCPConnection(loop: loop, handle: handle)))
    }

    private func finish(_ result: Result<TCPConnection, LoopError>) {
        stage = .finished
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }
}
