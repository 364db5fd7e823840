import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Database backends stopped with `SIGSTOP`, a hung server, until ``resume()`` or, at the latest, `limit` later.
///
/// A stopped backend answers nothing, not even the barrier every backend must answer before another test's `DROP
/// DATABASE` can finish, and that test's `psql` blocks a thread of the cooperative pool meanwhile. When other tests
/// blocked the pool's other threads too, the test that stopped the backends never ran again to resume them: the suite
/// hung (seen once in about forty runs here, with `DROP DATABASE` waiting on `ProcSignalBarrier`). The limit is kept
/// by a thread of its own, outside the pool.
final class StoppedBackends: Sendable {
    private let backends: [Int]
    private let terminate: Bool
    private let resumed = Mutex(false)

    /// Stops `backends`; ``resume()`` continues them, and also terminates them when `terminate`.
    init(_ backends: [Int], terminate: Bool = true, atMost limit: Duration = .seconds(20)) {
        self.backends = backends
        self.terminate = terminate
        for backend in backends { kill(pid_t(backend), SIGSTOP) }
        let seconds = Double(limit.components.seconds)
        Thread.detachNewThread { [self] in
            Thread.sleep(forTimeInterval: seconds)
            resume()
        }
    }

    /// Continues the backends (and terminates them when asked to), once; later calls do nothing.
    func resume() {
        let first = resumed.withLock { resumed in
            defer { resumed = true }
            return !resumed
        }
        guard first else { return }
        for backend in backends {
            kill(pid_t(backend), SIGCONT)
            if terminate { kill(pid_t(backend), SIGTERM) }
        }
    }
}
