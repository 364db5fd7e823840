/// The cost parameters of scrypt (RFC 7914): N = 2^`logN` (CPU and memory cost), `r` (block size), `p`
/// (parallelism). scrypt needs about 128 · r · N bytes of memory.
public struct ScryptParameters: Sendable, Hashable, CustomStringConvertible {
    /// log2 of N; 1...20.
    public let logN: Int
    /// Block size; 1...32.
    public let r: Int
    /// Parallelism; 1...16.
    public let p: Int

    /// The largest scrypt working array (128 · r · N bytes) one hash may use, 256 MiB, so a stored hash with
    /// absurd parameters cannot exhaust the server.
    public static let maximumMemoryByteCount = 256 << 20

    /// N = 2^15, r = 8, p = 1: the API contract's minimum (§9), about 32 MiB and tens of milliseconds per hash.
    public static let recommended = ScryptParameters(uncheckedLogN: 15, r: 8, p: 1)

    /// Parameters within the accepted ranges (`logN` 1...20, `r` 1...32, `p` 1...16, and 128 · r · N at most
    /// ``maximumMemoryByteCount``); anything else is ``PasswordHashError/parametersOutOfRange(_:)``. Small
    /// values (e.g. `logN: 4, r: 1, p: 1`) are allowed so tests stay fast; production uses ``recommended``.
    public init(logN: Int, r: Int, p: Int) throws(PasswordHashError) {
        guard (1...20).contains(logN) else { throw .parametersOutOfRange("ln=\(logN) is outside 1...20") }
        guard (1...32).contains(r) else { throw .parametersOutOfRange("r=\(r) is outside 1...32") }
        guard (1...16).contains(p) else { throw .parametersOutOfRange("p=\(p) is outside 1...16") }
        self.init(uncheckedLogN: logN, r: r, p: p)
        guard 128 * r * n <= Self.maximumMemoryByteCount else {
            throw .parametersOutOfRange("ln=\(logN),r=\(r) needs \((128 * r * n) >> 20) MiB, more than 256")
        }
    }

    private init(uncheckedLogN logN: Int, r: Int, p: Int) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// N.
    public var n: Int { 1 << logN }

    /// The memory OpenSSL needs for these parameters: 128 · r · (N + 2) for V plus 128 · r · p for B. Passed to
    /// OpenSSL as `maxmem` (with some slack), since its default limit (32 MiB) is below what N = 2^15, r = 8
    /// needs.
    public var memoryByteCount: Int { 128 * r * (n + 2) + 128 * r * p }

    /// Whether every parameter is at least as strong as the one of `other`.
    public func isAtLeastAsStrong(as other: ScryptParameters) -> Bool {
        logN >= other.logN && r >= other.r && p >= other.p
    }

    /// `ln=15,r=8,p=1`, the PHC parameter list.
    public var description: String { "ln=\(logN),r=\(r),p=\(p)" }
}
