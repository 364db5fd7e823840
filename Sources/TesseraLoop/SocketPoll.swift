internal import CLibUV

/// Watches a socket that another owner closes (libpq's, a listener's) for readability and writability; use it only
/// on its loop's thread.
public final class SocketPoll {
    /// What the socket became ready for.
    public struct Events: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Data can be read.
        public static let readable = Events(rawValue: Int32(UV_READABLE.rawValue))
        /// Data can be written.
        public static let writable = Events(rawValue: Int32(UV_WRITABLE.rawValue))
    }

    private let handle: UnsafeMutablePointer<uv_poll_t>
    private var callback: ((Result<Events, LoopError>) -> Void)?
    private var closed = false
    /// The watched file descriptor.
    public let descriptor: Int32

    /// Creates a stopped watcher for `descriptor`.
    public init(loop: EventLoop, descriptor: Int32) throws(LoopError) {
        loop.preconditionInEventLoop()
        self.descriptor = descriptor
        let handle = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
        handle.initialize(to: uv_poll_t())
        if let error = LoopError.failure(uv_poll_init(loop.uvLoop, handle, descriptor), "poll socket \(descriptor)") {
            handle.deallocate()
            throw error
        }
        self.handle = handle
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Watches for `events`, replacing what was watched before; `callback` gets the ready events or an error.
    public func watch(_ events: Events, _ callback: @escaping (Result<Events, LoopError>) -> Void) {
        guard !closed else { return }
        self.callback = callback
        let status = uv_poll_start(handle, events.rawValue) { handle, status, events in
            guard let data = handle?.pointee.data else { return }
            let poll = Unmanaged<SocketPoll>.fromOpaque(data).takeUnretainedValue()
            poll.callback?(
                LoopError.failure(status, "poll socket \(poll.descriptor)").map { .failure($0) }
                    ?? .success(Events(rawValue: events)))
        }
        if let error = LoopError.failure(status, "poll socket \(descriptor)") { callback(.failure(error)) }
    }

    /// Stops watching until the next ``watch(_:_:)``.
    public func stop() {
        guard !closed else { return }
        uv_poll_stop(handle)
    }

    /// Stops watching and releases the handle (the socket itself stays open: its owner closes it).
    public func close() {
        guard !closed else { return }
        closed = true
        callback = nil
        handle.pointee.data = nil
        handle.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { uv_close($0, freeHandle) }
    }

    deinit { close() }
}
