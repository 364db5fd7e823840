import TesseraLoop

#if canImport(Glibc)
import Glibc
#endif

/// Waits for the first SIGTERM or SIGINT. After it, the signals get their default action back, so a second
/// one stops a shutdown that hangs.
enum ShutdownSignal {
    /// Suspends until SIGTERM or SIGINT arrives and returns its name.
    static func wait(on loop: EventLoop) async -> String {
        await withCheckedContinuation { continuation in
            loop.execute {
                let holder = WatcherHolder()
                holder.watcher = SignalWatcher(loop: loop, signals: [SIGTERM, SIGINT]) { signal in
                    holder.watcher?.close()
                    holder.watcher = nil
                    continuation.resume(returning: signal == SIGTERM ? "SIGTERM" : "SIGINT")
                }
            }
        }
    }
}

/// Keeps the watcher alive until it fires; touched only on its loop.
private final class WatcherHolder {
    var watcher: SignalWatcher?
}
