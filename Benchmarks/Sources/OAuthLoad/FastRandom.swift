/// A cheap pseudo-random generator (xoshiro256**) for values that only need to differ: PKCE verifiers and
/// `state`. Seeded from the system generator, one per virtual user, so it costs no system call per cycle.
struct FastRandom: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// A generator seeded from the operating system's random source.
    init() {
        var system = SystemRandomNumberGenerator()
        state = (system.next(), system.next(), system.next(), system.next() | 1)
    }

    mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(count + 8)
        while output.count < count {
            var word = next()
            for _ in 0..<8 {
                output.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        output.removeLast(output.count - count)
        return output
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
