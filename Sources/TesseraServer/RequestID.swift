/// Request ids for logs: random, so they reveal nothing about traffic volume.
enum RequestID {
    /// A new 16-hex-digit id.
    static func make() -> String {
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
