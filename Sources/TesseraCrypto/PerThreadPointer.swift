#if canImport(Glibc)
import Glibc
#endif

/// A pointer each thread makes for itself on first use and that is destroyed when the thread ends (a
/// `pthread_key_t` with a destructor): state used without a lock because no other thread ever sees it.
final class PerThreadPointer: Sendable {
    private let key: pthread_key_t
    private let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void

    /// A slot whose pointers `destroy` releases, at the end of their thread.
    init(destroy: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void) {
        var key = pthread_key_t()
        let created = pthread_key_create(&key, destroy)
        precondition(created == 0, "pthread_key_create failed: \(created)")
        self.key = key
        self.destroy = destroy
    }

    /// The calling thread's pointer, if it has made one.
    var existing: UnsafeMutableRawPointer? { pthread_getspecific(key) }

    /// The calling thread's pointer, made by `make` on the thread's first call; nil when `make` fails.
    func current(making make: () -> UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        if let pointer = pthread_getspecific(key) { return pointer }
        guard let pointer = make() else { return nil }
        guard pthread_setspecific(key, pointer) == 0 else {
            destroy(pointer)
            return nil
        }
        return pointer
    }
}
