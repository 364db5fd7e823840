import TesseraHTTP
import Testing

@Suite struct HTTPHeadersTests {
    /// Every pair of bytes, as a one-byte name and inside a longer one, is found as an ASCII case-insensitive
    /// comparison would find it: letters in either case match, and nothing else that differs (`@` and `` ` ``, `[`
    /// and `{` differ by the same bit as a letter's cases).
    @Test func namesCompareAsciiCaseInsensitivelyForEveryPairOfBytes() {
        func folded(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
        }
        var mismatches: [String] = []
        for a in UInt8(0x21)...UInt8(0x7E) {
            for b in UInt8(0x21)...UInt8(0x7E) {
                let expected = folded(a) == folded(b)
                for (stored, asked) in [([a], [b]), ([120, a, 45, 121], [120, b, 45, 121])] {
                    var headers = HTTPHeaders()
                    headers.add(name: String(decoding: stored, as: UTF8.self), value: "v")
                    let found = headers[String(decoding: asked, as: UTF8.self)] != nil
                    if found != expected { mismatches.append("\(a) \(b) in \(stored.count) bytes") }
                }
            }
        }
        #expect(mismatches.isEmpty)
    }

    @Test func namesOfOtherLengthsOrLongerThanASmallStringCompare() {
        var headers = HTTPHeaders()
        headers.add(name: "X-A-Field-Name-Longer-Than-Fifteen-Bytes", value: "long")
        headers.add(name: "Host", value: "h")
        #expect(headers["x-a-field-name-longer-than-fifteen-bytes"] == "long")
        #expect(headers["X-A-Field-Name-Longer-Than-Fifteen-Byte"] == nil)
        #expect(headers["HOST"] == "h")
        #expect(headers["Hos"] == nil && headers["Hosts"] == nil && headers[""] == nil)
    }
}
