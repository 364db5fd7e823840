import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The scrypt jobs the server takes on at once. Each costs ~50 ms of a pool thread; a burst beyond the pool's
/// threads waits in libuv's queue, and one beyond `capacity` fails at once with `TOO_MANY_ATTEMPTS_TRY_LATER`
/// (`retryAfter` 1 s) rather than queueing work that would answer seconds later, after its client gave up.
/// Safe from any thread.
public final class PasswordHashingQueue: Sendable {
    /// Jobs running or waiting, at most.
    public let capacity: Int
    private let inFlight = Atomic<Int>(0)

    /// A queue of at most `capacity` jobs.
    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Jobs per thread of the pool, running or waiting: at ~60 ms a job, about a second of work queued.
    static let jobsPerThread = 16

    /// A queue sized for libuv's thread pool as this process runs it: `jobsPerThread` jobs per thread
    /// (`UV_THREADPOOL_SIZE`, libuv's default 4).
    public static func forThreadPool() -> PasswordHashingQueue {
        let threads = getenv("UV_THREADPOOL_SIZE").flatMap { Int(String(cString: $0)) }.map { max(1, $0) } ?? 4
        return PasswordHashingQueue(capacity: threads * jobsPerThread)
    }

    /// Runs `work` when there is room, else throws `TOO_MANY_ATTEMPTS_TRY_LATER` at once.
    func run<T>(_ work: () async throws -> T) async throws -> T {
        let taken = inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        defer { inFlight.wrappingSubtract(1, ordering: .relaxed) }
        guard taken <= capacity else {
            throw AuthError(
                .tooManyAttemptsTryLater, "The server is busy checking passwords; try again in a moment.",
                retryAfter: 1)
        }
        return try await work()
    }
}
