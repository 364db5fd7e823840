internal import CLibUV

/// Calls a closure on a loop when the process receives one of a set of signals (SIGTERM, SIGINT, …);
/// use it only on that loop's thread.
public final class SignalWatcher {
    private var handles: [UnsafeMutablePointer<uv_signal_t>] = []
    private let handler: (Int32) -> Void

    /// Starts watching `signals` on `loop`.
    public init(loop: EventLoop, signals: [Int32], handler: @escaping (Int32) -> Void) {
        loop.preconditionInEventLoop()
        self.handler = handler
        for signal in signals {
            let handle = UnsafeMutablePointer<uv_signal_t>.allocate(capacity: 1)
            handle.initialize(to: uv_signal_t())
            LoopError.require(uv_signal_init(loop.uvLoop, handle), "uv_signal_init")
            handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
            let status = uv_signal_start(
                handle,
                { handle, signal in
                    guard let data = handle?.pointee.data else { return }
                    Unmanaged<SignalWatcher>.fromOpaque(data).takeUnretainedValue().handler(signal)
                }, signal)
            LoopError.require(status, "uv_signal_start \(signal)")
            handles.append(handle)
        }
    }

    /// Stops watching; the signals get their default behaviour back.
    public func close() {
        for handle in handles {
            handle.pointee.data = nil
            handle.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { uv_close($0, freeHandle) }
        }
        handles = []
    }

    deinit { close() }
}
