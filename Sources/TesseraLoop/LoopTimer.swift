internal import CLibUV

/// A one-shot timer on a loop, re-armable; use it only on its loop's thread.
///
/// Re-arming replaces the pending fire. The closure is released once it fires, or on ``stop()`` and
/// ``close()``, so a closure that captures the timer's owner makes no lasting cycle.
public final class LoopTimer {
    private let handle: UnsafeMutablePointer<uv_timer_t>
    private let loop: EventLoop
    private var fire: (() -> Void)?
    private var closed = false

    /// Creates a stopped timer on `loop`.
    public init(loop: EventLoop) {
        loop.preconditionInEventLoop()
        self.loop = loop
        handle = .allocate(capacity: 1)
        handle.initialize(to: uv_timer_t())
        LoopError.require(uv_timer_init(loop.uvLoop, handle), "uv_timer_init")
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Calls `fire` on the loop after `delay`, unless stopped or re-armed first.
    public func start(after delay: Duration, _ fire: @escaping () -> Void) {
        start(afterMilliseconds: delay.roundedUpMilliseconds, fire)
    }

    /// ``start(after:_:)`` with the delay in whole milliseconds, for a caller that arms a timer for every request
    /// and converts its durations once (a `Duration`'s conversion takes a few hundred instructions).
    public func start(afterMilliseconds milliseconds: UInt64, _ fire: @escaping () -> Void) {
        guard !closed else { return }
        self.fire = fire
        // libuv measures from the time cached at the start of the loop iteration; refresh it so that the
        // timer never fires early.
        uv_update_time(loop.uvLoop)
        let status = uv_timer_start(
            handle,
            { handle in
                guard let data = handle?.pointee.data else { return }
                let timer = Unmanaged<LoopTimer>.fromOpaque(data).takeUnretainedValue()
                let fire = timer.fire
                timer.fire = nil
                fire?()
            }, milliseconds, 0)
        LoopError.require(status, "uv_timer_start")
    }

    /// Cancels a pending fire.
    public func stop() {
        guard !closed else { return }
        uv_timer_stop(handle)
        fire = nil
    }

    /// Releases the libuv handle; the timer does nothing after this.
    public func close() {
        guard !closed else { return }
        closed = true
        fire = nil
        handle.pointee.data = nil
        handle.withMemoryRebound(to: uv_handle_t.self, capacity: 1) { uv_close($0, freeHandle) }
    }

    deinit { close() }
}

extension Duration {
    /// Whole milliseconds, rounded up so that a timer never fires early nor a timeout ends before its time;
    /// negative durations are zero.
    public var roundedUpMilliseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, !(seconds == 0 && attoseconds <= 0) else { return 0 }
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let millis = attoseconds / perMillisecond + (attoseconds % perMillisecond > 0 ? 1 : 0)
        return UInt64(seconds) * 1000 + UInt64(millis)
    }
}

/// The close callback of handles that Tessera allocated itself.
let freeHandle: uv_close_cb = { handle in
    UnsafeMutableRawPointer(handle)?.deallocate()
}
