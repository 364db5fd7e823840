internal import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// Each thread's reserve of OpenSSL CSPRNG output, from which ``SecureRandom`` serves small draws.
///
/// `RAND_bytes` costs about 6 700 instructions and a `getpid` system call (OpenSSL's fork check) whatever the length
/// asked, so a 12-byte nonce cost as much as 500 bytes. A draw of at most ``largestDraw`` bytes is copied from the
/// calling thread's reserve of ``capacity`` bytes, refilled by one `RAND_bytes` when it runs short; larger draws go
/// to `RAND_bytes` directly. The bytes are OpenSSL's, unchanged: no generator of our own.
///
/// Every byte is handed out once: it is wiped from the reserve as it is copied out, so the reserve holds only
/// bytes nobody has seen, and a thread's reserve is wiped and freed when the thread ends. A forked child wipes the
/// forking thread's reserve (`pthread_atfork`), so that parent and child never hand out the same bytes.
enum RandomReserve {
    /// Bytes drawn from OpenSSL at a time.
    static let capacity = 512
    /// The longest draw served from the reserve.
    static let largestDraw = 64

    /// Each thread's reserve (`malloc`ed; wiped and freed when its thread ends).
    private static let reserves: PerThreadPointer = {
        let reserves = PerThreadPointer { reserve in
            guard let reserve else { return }
            OPENSSL_cleanse(reserve, RandomReserve.byteCount)
            free(reserve)
        }
        let registered = pthread_atfork(nil, nil) {
            guard let reserve = RandomReserve.reserves.existing else { return }
            RandomReserve.empty(reserve)
        }
        precondition(registered == 0, "pthread_atfork failed: \(registered)")
        return reserves
    }()

    /// The size of one reserve: its count of used bytes, then ``capacity`` bytes.
    private static let byteCount = MemoryLayout<Int>.stride + capacity

    /// Fills `buffer` (at most ``largestDraw`` bytes) from the calling thread's reserve, refilling it first when it
    /// holds too few. Throws when the refill fails; the reserve is then left empty.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        precondition(buffer.count <= largestDraw, "a draw of \(buffer.count) bytes is too large for the reserve")
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        let reserve = try current()
        let used = reserve.load(as: Int.self)
        var offset = used
        if capacity - used < buffer.count {
            let bytes = reserve.advanced(by: MemoryLayout<Int>.stride)
            guard RAND_bytes(bytes.assumingMemoryBound(to: UInt8.self), Int32(capacity)) == 1 else {
                empty(reserve)
                throw OpenSSLCall.failure("RAND_bytes")
            }
            offset = 0
        }
        let source = reserve.advanced(by: MemoryLayout<Int>.stride + offset)
        base.copyMemory(from: source, byteCount: buffer.count)
        OPENSSL_cleanse(source, buffer.count)
        reserve.storeBytes(of: offset + buffer.count, as: Int.self)
    }

    /// The calling thread's reserve, made empty on its first use.
    private static func current() throws(CryptoError) -> UnsafeMutableRawPointer {
        let reserve = reserves.current {
            guard let reserve = malloc(byteCount) else { return nil }
            empty(reserve)
            return reserve
        }
        guard let reserve else { throw .library(operation: "malloc", detail: "no memory for the random reserve") }
        return reserve
    }

    /// Wipes a reserve and marks all of it used, so that the next draw refills it.
    private static func empty(_ reserve: UnsafeMutableRawPointer) {
        OPENSSL_cleanse(reserve, byteCount)
        reserve.storeBytes(of: capacity, as: Int.self)
    }
}
