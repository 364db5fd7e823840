/// The loop as the executor of tasks and actors: a job enqueued here runs on the loop's thread, isolated to
/// the loop, with the loop as its task executor, so work that awaits stays on this thread.
extension EventLoop: SerialExecutor, TaskExecutor {
    /// Queues a job; it runs on the loop thread in the order it was enqueued.
    public func enqueue(_ job: consuming ExecutorJob) {
        push(.job(UnownedJob(job)))
    }

    /// This loop as a serial executor, for actors whose `unownedExecutor` is the loop.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// This loop as a task executor, for `Task(executorPreference:)`.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Stops the program unless the caller runs on the loop thread.
    public func checkIsolated() {
        precondition(inEventLoop, "expected to run on event loop \(index)")
    }

    /// Whether the caller runs on the loop thread.
    public func isIsolatingCurrentContext() -> Bool? {
        inEventLoop
    }
}
