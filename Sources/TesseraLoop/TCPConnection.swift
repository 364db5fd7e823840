internal import CLibUV

#if canImport(Glibc)
import Glibc
#endif

/// What a ``TCPConnection`` tells its owner. Every call comes on the connection's loop thread.
public protocol TCPConnectionDelegate: AnyObject {
    /// Bytes arrived. The buffer is valid only during the call.
    func connection(_ connection: TCPConnection, didRead bytes: UnsafeRawBufferPointer)
    /// The peer closed its side or the socket failed; reading has stopped. The owner decides when to close.
    func connectionDidReachEnd(_ connection: TCPConnection)
    /// The socket is released; this is the last call.
    func connectionDidClose(_ connection: TCPConnection)
}

/// An accepted TCP connection; use it only on its loop's thread.
///
/// The connection keeps itself alive while its socket is open, and holds its delegate strongly until it
/// closes, so the owner needs no other reference. Writes go out in order: a write tries the socket at once
/// (`uv_try_write`) when nothing is queued, and queues only what the kernel did not take. What the delegate writes
/// while it reads (an answer made at once) is held until the socket callbacks of that turn of the loop have run
/// (``EventLoop/sendAfterSocketCallbacks(_:)``), then sent in one piece with what else it wrote meanwhile.
public final class TCPConnection {
    /// The loop that owns this connection.
    public let loop: EventLoop
    /// Receives reads and the end of the connection; released after ``TCPConnectionDelegate/connectionDidClose(_:)``.
    public var delegate: (any TCPConnectionDelegate)?
    /// The peer's `host:port`, when the socket could tell.
    public let remoteAddress: String?

    private let handle: UnsafeMutablePointer<uv_tcp_t>
    private var queuedWrites = 0
    /// Whether the delegate is reading: what it writes meanwhile is held.
    private var reading = false
    /// Whether writes are held for the loop to send after this turn's socket callbacks.
    private var holdingWrites = false
    /// The bytes written while holding, in order.
    private var heldBytes: [UInt8] = []
    /// The completions of the held writes, in order.
    private var heldCompletions: [(Bool) -> Void] = []
    private var state = State.open
    private var lingerTimer: LoopTimer?
    /// Runs while writes are queued; restarted whenever one completes.
    private var writeStallTimer: LoopTimer?
    /// How long queued writes may make no progress (a peer that stops reading) before the connection is aborted;
    /// nil waits forever. Set it before writing.
    public var writeStallTimeout: Duration?
    /// Runs once the socket is released (a listener counts its loops' open connections with it).
    private let released: (() -> Void)?

    /// Where the connection is in its life.
    private enum State {
        /// Reading and writing.
        case open
        /// ``close()`` was called: waiting for queued writes, then half-closing.
        case closingAfterWrites
        /// Our side is shut down; discarding input until the peer closes or the linger time passes.
        case lingering
        /// `uv_close` was called.
        case closed
    }

    /// How long a closed connection keeps reading (and discarding) so that the peer receives our last
    /// response instead of a reset caused by unread input.
    static let lingerTime: Duration = .seconds(2)

    init(loop: EventLoop, handle: UnsafeMutablePointer<uv_tcp_t>, released: (() -> Void)? = nil) {
        self.loop = loop
        self.handle = handle
        self.released = released
        var peer = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getpeername(handle, $0, &length) }
        }
        remoteAddress = LoopError.failure(status, "getpeername") == nil ? SocketAddress.describe(peer) : nil
        handle.pointee.data = Unmanaged.passRetained(self).toOpaque()
    }

    private var stream: UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_stream_t.self)
    }

    /// Starts delivering reads to the delegate.
    public func startReading() {
        guard state == .open else { return }
        let status = uv_read_start(
            stream, lendReadBuffer,
            { stream, count, buffer in
                guard let stream, let data = stream.pointee.data else { return }
                let connection = Unmanaged<TCPConnection>.fromOpaque(data).takeUnretainedValue()
                connection.didRead(count: count, base: buffer?.pointee.base)
            })
        // Reading already is fine; a socket that cannot be read at all is of no use.
        if status != UV_EALREADY.rawValue, LoopError.failure(status, "read") != nil { abort() }
    }

    /// Stops delivering reads (backpressure); ``startReading()`` resumes.
    public func stopReading() {
        guard state == .open else { return }
        uv_read_stop(stream)
    }

    private func didRead(count: Int, base: UnsafeMutablePointer<CChar>?) {
        if count > 0 {
            guard state == .open, let base else { return }
            reading = true
            delegate?.connection(self, didRead: UnsafeRawBufferPointer(start: base, count: count))
            reading = false
        } else if count < 0 {
            uv_read_stop(stream)
            if state == .lingering { return abort() }
            delegate?.connectionDidReachEnd(self)
        }
    }

    /// Writes `bytes` after everything written before; `completion` learns whether they were sent.
    public func write(_ bytes: [UInt8], completion: ((Bool) -> Void)? = nil) {
        guard state == .open else {
            completion?(false)
            return
        }
        guard reading || holdingWrites else { return send(bytes, completion: completion) }
        if heldBytes.isEmpty { heldBytes = bytes } else { heldBytes.append(contentsOf: bytes) }
        if let completion { heldCompletions.append(completion) }
        if !holdingWrites {
            holdingWrites = true
            loop.sendAfterSocketCallbacks(self)
        }
    }

    /// Sends what was written while holding, in one piece; the loop calls it after the turn's socket callbacks.
    func sendHeldWrites() {
        holdingWrites = false
        let bytes = heldBytes
        heldBytes = []
        let completions = heldCompletions
        heldCompletions.removeAll()
        guard state == .open || state == .closingAfterWrites else {
            for completion in completions { completion(false) }
            return
        }
        switch completions.count {
        case 0: send(bytes, completion: nil)
        case 1: send(bytes, completion: completions[0])
        default: send(bytes) { sent in for completion in completions { completion(sent) } }
        }
        if state == .closingAfterWrites && queuedWrites == 0 { shutDownWriting() }
    }

    /// Sends `bytes` after the writes queued before them.
    private func send(_ bytes: [UInt8], completion: ((Bool) -> Void)?) {
        var offset = 0
        if queuedWrites == 0 {
            let written = bytes.withUnsafeBufferPointer { buffer -> Int32 in
                var slice = uv_buf_init(
                    UnsafeMutableRawPointer(mutating: buffer.baseAddress)?.assumingMemoryBound(to: CChar.self),
                    UInt32(buffer.count))
                return uv_try_write(stream, &slice, 1)
            }
            if written == Int32(bytes.count) {
                completion?(true)
                return
            }
            offset = max(0, Int(written))
        }
        let request = WriteRequest(bytes: bytes[offset...], completion: completion)
        request.request.pointee.data = Unmanaged.passRetained(request).toOpaque()
        var slice = uv_buf_init(
            request.storage.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(request.storage.count))
        let status = uv_write(request.request, stream, &slice, 1) { request, status in
            guard let request, let data = request.pointee.data else { return }
            let write = Unmanaged<WriteRequest>.fromOpaque(data).takeRetainedValue()
            guard let stream = request.pointee.handle, let owner = stream.pointee.data else {
                write.completion?(false)
                return
            }
            Unmanaged<TCPConnection>.fromOpaque(owner).takeUnretainedValue().writeFinished(write, status: status)
        }
        if LoopError.failure(status, "write") != nil {
            Unmanaged<WriteRequest>.fromOpaque(request.request.pointee.data).release()
            completion?(false)
            abort()
            return
        }
        queuedWrites += 1
        if queuedWrites == 1 { armWriteStallTimer() }
    }

    private func writeFinished(_ write: WriteRequest, status: Int32) {
        queuedWrites -= 1
        if queuedWrites == 0 { writeStallTimer?.stop() } else { armWriteStallTimer() }
        let failed = LoopError.failure(status, "write") != nil
        write.completion?(!failed)
        if failed && state != .closed {
            abort()
        } else if queuedWrites == 0 && state == .closingAfterWrites {
            shutDownWriting()
        }
    }

    /// Closes gracefully: queued writes go out, our side is shut down, and input is read and discarded for a
    /// short while so the peer sees our last bytes rather than a reset.
    public func close() {
        guard state == .open else { return }
        state = .closingAfterWrites
        if queuedWrites == 0 && !holdingWrites { shutDownWriting() }
    }

    private func shutDownWriting() {
        state = .lingering
        let request = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        request.initialize(to: uv_shutdown_t())
        let status = uv_shutdown(request, stream) { request, _ in
            UnsafeMutableRawPointer(request)?.deallocate()
        }
        guard LoopError.failure(status, "shutdown") == nil else {
            request.deallocate()
            return abort()
        }
        let reading = uv_read_start(
            stream, lendReadBuffer,
            { stream, count, _ in
                guard count < 0, let stream, let data = stream.pointee.data else { return }
                Unmanaged<TCPConnection>.fromOpaque(data).takeUnretainedValue().abort()
            })
        // When reading cannot start, the linger would not see the peer's close: end at once.
        if reading != UV_EALREADY.rawValue, LoopError.failure(reading, "read") != nil { return abort() }
        let timer = LoopTimer(loop: loop)
        timer.start(after: Self.lingerTime) { [self] in abort() }
        lingerTimer = timer
    }

    /// Aborts the connection unless a queued write completes within ``writeStallTimeout``.
    private func armWriteStallTimer() {
        guard let timeout = writeStallTimeout, state != .closed else { return }
        let timer = writeStallTimer ?? LoopTimer(loop: loop)
        writeStallTimer = timer
        timer.start(after: timeout) { [self] in abort() }
    }

    /// Closes now: queued writes are cancelled and their completions learn they failed.
    public func abort() {
        guard state != .closed else { return }
        state = .closed
        lingerTimer?.close()
        lingerTimer = nil
        writeStallTimer?.close()
        writeStallTimer = nil
        handle.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { handle in
            uv_close(handle) { handle in
                guard let handle else { return }
                if let data = handle.pointee.data {
                    let connection = Unmanaged<TCPConnection>.fromOpaque(data).takeRetainedValue()
                    handle.pointee.data = nil
                    connection.released?()
                    connection.delegate?.connectionDidClose(connection)
                    connection.delegate = nil
                }
                UnsafeMutableRawPointer(handle).deallocate()
            }
        }
    }
}

/// libuv's allocation callback for every connection: it lends the loop's shared read buffer, which the read
/// callback consumes before libuv asks again.
private let lendReadBuffer: uv_alloc_cb = { handle, _, buffer in
    guard let handle, let data = handle.pointee.data else { return }
    let connection = Unmanaged<TCPConnection>.fromOpaque(data).takeUnretainedValue()
    buffer?.pointee = uv_buf_init(
        connection.loop.readBuffer.baseAddress?.assumingMemoryBound(to: CChar.self),
        UInt32(connection.loop.readBuffer.count))
}

/// A queued write: the bytes libuv sends and the request, kept until the write callback.
private final class WriteRequest {
    let request: UnsafeMutablePointer<uv_write_t>
    let storage: UnsafeMutableRawBufferPointer
    let completion: ((Bool) -> Void)?

    init(bytes: ArraySlice<UInt8>, completion: ((Bool) -> Void)?) {
        request = .allocate(capacity: 1)
        request.initialize(to: uv_write_t())
        storage = .allocate(byteCount: bytes.count, alignment: 1)
        storage.copyBytes(from: bytes)
        self.completion = completion
    }

    deinit {
        request.deallocate()
        storage.deallocate()
    }
}
