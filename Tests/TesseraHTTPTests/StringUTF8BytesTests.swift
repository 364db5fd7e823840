import Testing

@testable import TesseraHTTP

@Suite struct StringUTF8BytesTests {
    /// Byte for byte, not Swift's `==`: a precomposed and a decomposed "é" are equal strings and different bytes.
    @Test func sameBytesIsNotCanonicalEquivalence() {
        let precomposed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(precomposed == decomposed)
        #expect(!precomposed.hasSameUTF8Bytes(as: decomposed))
        #expect(precomposed.hasSameUTF8Bytes(as: "caf\u{E9}"))
        let long = String(repeating: "https://a.example/cb", count: 4)
        #expect(long.hasSameUTF8Bytes(as: String(repeating: "https://a.example/cb", count: 4)))
        #expect(!long.hasSameUTF8Bytes(as: String(long.dropLast()) + "c"))
        #expect(!"".hasSameUTF8Bytes(as: "a") && "".hasSameUTF8Bytes(as: ""))
    }

    @Test func everyByteIsChecked() {
        let text = String(repeating: "a", count: 40) + "!"
        #expect(!text.allUTF8Bytes { $0 != UInt8(ascii: "!") })
        #expect(text.allUTF8Bytes { $0 < 0x80 })
        #expect(!"\u{E9}".allUTF8Bytes { $0 < 0x80 })
        #expect("".allUTF8Bytes { _ in false })
    }
}
