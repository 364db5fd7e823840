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
}
