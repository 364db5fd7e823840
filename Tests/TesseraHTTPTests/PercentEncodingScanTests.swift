import Testing

@testable import TesseraHTTP

/// The first pass of `PercentEncoding.decode` reads eight bytes a step; it must find what a byte-by-byte look finds.
@Suite struct PercentEncodingScanTests {
    struct Expected: Equatable {
        var needsWork = false
        var nul = false
        var ascii = true

        init(_ bytes: [UInt8], plus: UInt8) {
            for byte in bytes {
                if byte == UInt8(ascii: "%") || byte == plus { needsWork = true }
                if byte == 0 { nul = true }
                if byte >= 0x80 { ascii = false }
            }
        }
    }

    static func found(_ bytes: [UInt8], plus: UInt8) -> Expected {
        let found = bytes.withUnsafeBufferPointer { PercentEncoding.BytesFound(in: $0, plus: plus) }
        var result = Expected([], plus: plus)
        result.needsWork = found.needsWork
        result.nul = found.nul
        result.ascii = found.ascii
        return result
    }

    /// Every byte value at every position of texts as long as two words and some, on backgrounds next to the bytes
    /// looked for (a borrow from a byte below them, or one above them, must not be taken for them).
    @Test(arguments: [UInt8(ascii: "+"), UInt8(ascii: "%")])
    func everyByteAtEveryPositionIsFound(plus: UInt8) {
        for background: UInt8 in [UInt8(ascii: "a"), 0x01, 0x24, 0x26, 0x2A, 0x2C, 0x7F, 0xFF] {
            for length in 1...19 {
                for position in 0..<length {
                    for byte in UInt8.min...UInt8.max {
                        var bytes = [UInt8](repeating: background, count: length)
                        bytes[position] = byte
                        let expected = Expected(bytes, plus: plus)
                        guard Self.found(bytes, plus: plus) == expected else {
                            Issue.record("byte \(byte) at \(position) of \(length) on \(background): not as expected")
                            return
                        }
                    }
                }
            }
        }
    }

    @Test func randomTextsAgreeWithTheByteByByteLook() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0, 0x01, 0x20, 0x24, 0x25, 0x26, 0x2A, 0x2B, 0x2C, 0x41, 0x7F, 0x80, 0xC3, 0xFF]
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                Bool.random(using: &generator)
                    ? alphabet.randomElement(using: &generator)! : UInt8(ascii: "a")
            }
            for plus in [UInt8(ascii: "+"), UInt8(ascii: "%")] {
                #expect(Self.found(bytes, plus: plus) == Expected(bytes, plus: plus), "\(bytes)")
            }
        }
    }
}
