internal import CLibUV

extension EventLoop {
    /// Runs blocking or CPU-heavy `work` (scrypt, key generation, a blocking library call) on libuv's thread
    /// pool and returns its result; the loop keeps serving meanwhile. The caller resumes on its own executor.
    public func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = OffloadJob(work: work, continuation: continuation)
            if inEventLoop { job.queue(on: self) } else { execute { job.queue(on: self) } }
        }
    }
}

/// Offloaded work as libuv's C callbacks see it: they cannot name a generic type.
private class OffloadTask: @unchecked Sendable {
    /// Runs on a pool thread.
    func run() {}
    /// Runs back on the loop thread with libuv's status.
    func complete(status: Int32) {}

    func queue(on loop: EventLoop) {
        let request = UnsafeMutablePointer<uv_work_t>.allocate(capacity: 1)
        request.initialize(to: uv_work_t())
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        let status = uv_queue_work(
            loop.uvLoop, request,
            { request in
                tessera_name_pool_thread()
                guard let data = request?.pointee.data else { return }
                Unmanaged<OffloadTask>.fromOpaque(data).takeUnretainedValue().run()
            },
            { request, status in
                guard let request, let data = request.pointee.data else { return }
                let task = Unmanaged<OffloadTask>.fromOpaque(data).takeRetainedValue()
                request.deallocate()
                task.complete(status: status)
            })
        if LoopError.failure(status, "uv_queue_work") != nil {
            Unmanaged<OffloadTask>.fromOpaque(request.pointee.data).release()
            request.deallocate()
            complete(status: status)
        }
    }
}

/// One piece of offloaded work and the continuation waiting for it. libuv orders `run` on the pool thread
/// before `complete` on the loop thread, so `result` needs no lock.
private final class OffloadJob<T: Sendable>: OffloadTask, @unchecked Sendable {
    private let work: @Sendable () throws -> T
    private let continuation: CheckedContinuation<T, any Error>
    private var result: Result<T, any Error>?

    init(work: @escaping @Sendable () throws -> T, continuation: CheckedContinuation<T, any Error>) {
        self.work = work
        self.continuation = continuation
    }

    override func run() {
        result = Result { try work() }
    }

    override func complete(status: Int32) {
        if let error = LoopError.failure(status, "uv_queue_work") {
            continuation.resume(throwing: error)
        } else if let result {
            continuation.resume(with: result)
        } else {
            continuation.resume(throwing: LoopError("uv_queue_work", code: tessera_uv_ecanceled()))
        }
    }
}
