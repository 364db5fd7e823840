import Testing

@testable import TesseraCrypto

/// OpenSSL's DER signatures read as JWS `r || s` (RFC 7518 §3.4), with a high `s` replaced by its twin.
struct ES256SignatureEncodingTests {
    static let order = ES256Curve.order
    static let half = ES256Curve.halfOrder

    /// A DER INTEGER of the unsigned big-endian `magnitude`, minimally encoded as DER requires.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return [0x02, UInt8(bytes.count)] + bytes
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] { [0x30, UInt8(content.count)] + content }

    static func raw(_ der: [UInt8]) throws(CryptoError) -> [UInt8] {
        try der.withUnsafeBufferPointer { der throws(CryptoError) in try ES256PrivateKey.rawSignature(fromDER: der) }
    }

    @Test func integersOfEveryLengthArePaddedToThirtyTwoBytes() throws {
        let low = [UInt8](repeating: 0x11, count: 32)
        let high = [0x9A] + [UInt8](repeating: 0x22, count: 31)  // above n/2 as r: r may be anything in 1..<n
        let short = [UInt8](repeating: 0, count: 3) + [UInt8](repeating: 0x33, count: 29)
        let one = [UInt8](repeating: 0, count: 31) + [1]
        for (r, s) in [(low, low), (high, short), (short, one), (one, high.map { $0 & 0x7F })] {
            #expect(try Self.raw(Self.sequence(Self.integer(r) + Self.integer(s))) == r + s)
        }
    }

    @Test func aHighSIsReplacedByItsTwin() throws {
        let r = [UInt8](repeating: 0x44, count: 32)
        var halfPlusOne = Self.half
        halfPlusOne[31] += 1
        // n = 2⌊n/2⌋ + 1, so the twin of ⌊n/2⌋ + 1 is ⌊n/2⌋, and that of n − 1 is 1.
        #expect(try Self.raw(Self.sequence(Self.integer(r) + Self.integer(halfPlusOne))) == r + Self.half)
        var orderMinusOne = Self.order
        orderMinusOne[31] -= 1
        let one = [UInt8](repeating: 0, count: 31) + [1]
        #expect(try Self.raw(Self.sequence(Self.integer(r) + Self.integer(orderMinusOne))) == r + one)
        // ⌊n/2⌋ itself is low and stays.
        #expect(try Self.raw(Self.sequence(Self.integer(r) + Self.integer(Self.half))) == r + Self.half)
    }

    @Test func theTwinOfTheTwinIsTheScalar() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var scalar = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            scalar[0] &= 0x7F  // below n
            guard ES256Curve.isValidScalar(scalar[...]) else { continue }
            var twin = scalar[...]
            ES256Curve.replaceWithTwin(&twin)
            #expect(ES256Curve.isValidScalar(twin))
            #expect(Array(twin) != scalar)
            ES256Curve.replaceWithTwin(&twin)
            #expect(Array(twin) == scalar)
        }
    }

    @Test func anythingButTwoIntegersInRangeIsRefused() {
        let value = [UInt8](repeating: 0x11, count: 32)
        let good = Self.integer(value)
        let zero = [UInt8](repeating: 0, count: 32)
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("set, not sequence", [0x31] + Self.sequence(good + good).dropFirst()),
            ("length too long", [0x30, UInt8(2 * good.count + 1)] + good + good),
            ("length too short", [0x30, UInt8(2 * good.count - 1)] + good + good),
            ("long-form length", [0x30, 0x81, UInt8(2 * good.count)] + good + good),
            ("one integer", Self.sequence(good)),
            ("three integers", Self.sequence(good + good + good)),
            ("trailing byte inside", Self.sequence(good + good + [0])),
            ("not an integer", Self.sequence([0x04] + good.dropFirst() + good)),
            ("negative", Self.sequence([0x02, 0x01, 0x80] + good)),
            ("not minimal", Self.sequence([0x02, 0x02, 0x00, 0x01] + good)),
            ("empty integer", Self.sequence([0x02, 0x00] + good)),
            ("integer past the end", Self.sequence(good + [0x02, 0x21] + value)),
            ("33 bytes", Self.sequence([0x02, 0x22, 0x00] + [UInt8](repeating: 0xFF, count: 33) + good)),
            ("r zero", Self.sequence(Self.integer(zero) + good)),
            ("s zero", Self.sequence(good + Self.integer(zero))),
            ("s is n", Self.sequence(good + Self.integer(Self.order))),
            ("r above n", Self.sequence(Self.integer([UInt8](repeating: 0xFF, count: 32)) + good)),
        ]
        for (name, der) in cases {
            #expect(throws: CryptoError.self, "\(name)") { try Self.raw(der) }
        }
    }
}
