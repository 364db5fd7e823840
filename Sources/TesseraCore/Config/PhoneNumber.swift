/// Checks on phone numbers shared by configuration and the phone factor.
public enum PhoneNumber {
    /// Whether the text is an E.164 number as API §4 accepts it: `+`, then 8 to 15 ASCII digits, the first not `0`;
    /// no spaces or punctuation.
    public static func isE164(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "+"), (9...16).contains(bytes.count) else { return false }
        let digits = bytes.dropFirst()
        return digits.first != UInt8(ascii: "0")
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The number as a challenge shows it and logs may name it (API §3): every ASCII digit but the last four
    /// replaced by `*`, everything else (the `+`) kept, so `+15555550100` becomes `+*******0100`. A text of four
    /// digits or fewer is not a number of API §4 and comes back unchanged.
    public static func masked(_ text: String) -> String {
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        var digitsToMask = text.utf8.count(where: isDigit) - 4
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if digitsToMask > 0, isDigit(byte) {
                bytes.append(UInt8(ascii: "*"))
                digitsToMask -= 1
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
