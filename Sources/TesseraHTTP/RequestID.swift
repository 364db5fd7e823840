import Synchronization

/// Request ids (``HTTPRequest/id``, the `request-id` of log lines and the audit log). They must be unique and must
/// not reveal traffic volume, and making one must cost next to nothing (one per request): a process-wide counter,
/// offset by a random key and scrambled by the SplitMix64 finalizer, a bijection on 64-bit values. Unique within a
/// process; unpredictable without the key.
public enum RequestID {
    private static let key = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// A new 16-hex-digit id.
    public static func make() -> String {
        var value = counter.wrappingAdd(1, ordering: .relaxed).newValue &+ key
        value = (value ^ (value >> 30)) &* 0xbf58_476d_1ce4_e5b9
        value = (value ^ (value >> 27)) &* 0x94d0_49bb_1331_11eb
        value ^= value >> 31
        return String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                let nibble = UInt8(truncatingIfNeeded: value >> (60 - 4 * index)) & 0xF
                buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
            return 16
        }
    }
}
