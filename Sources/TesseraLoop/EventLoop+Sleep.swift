extension EventLoop {
    /// Suspends the caller for `duration`, timed by this loop; throws `CancellationError` when the task is
    /// cancelled first. The caller resumes on its own executor.
    public func sleep(for duration: Duration) async throws {
        let sleeper = LoopBound(handingOver: Sleeper(loop: self), to: self)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                execute { sleeper.value.start(after: duration, continuation) }
            }
        } onCancel: {
            execute { sleeper.value.cancel() }
        }
    }
}

/// One sleep's timer and continuation, used on its loop's thread only (through a ``LoopBound``), so it needs no lock.
private final class Sleeper {
    private let loop: EventLoop
    private var timer: LoopTimer?
    private var continuation: CheckedContinuation<Void, any Error>?
    private var cancelled = false

    init(loop: EventLoop) { self.loop = loop }

    func start(after duration: Duration, _ continuation: CheckedContinuation<Void, any Error>) {
        guard !cancelled else { return continuation.resume(throwing: CancellationError()) }
        self.continuation = continuation
        let timer = LoopTimer(loop: loop)
        self.timer = timer
        timer.start(after: duration) { [self] in finish(with: nil) }
    }

    func cancel() {
        cancelled = true
        finish(with: CancellationError())
    }

    private func finish(with error: (any Error)?) {
        timer?.close()
        timer = nil
        guard let continuation else { return }
        self.continuation = nil
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}
