/// One line of `CallingCodeTable`: the numbers with a calling code, optionally narrowed to the national numbers that
/// start with some digits, and the CLDR region they belong to.
struct CallingCodeEntry: Hashable, Sendable {
    /// The country calling code: 1 to 3 ASCII digits, the first not `0`.
    let callingCode: String
    /// The digits the national number starts with; empty for the whole calling code.
    let leadingDigits: String
    /// A two-letter upper-case CLDR region, or `001` for a non-geographic code.
    let region: String

    /// Parses a line of the table format (`CODE REGION` or `CODE DIGITS REGION`, one space between fields).
    ///
    /// Comment and blank lines are not entries: the caller skips them. Any other deviation from the format throws
    /// the first rule the line breaks.
    init(line: Substring) throws(CallingCodeLineError) {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard !fields.contains(where: \.isEmpty) else { throw .extraSpace }
        guard fields.count == 2 || fields.count == 3 else { throw .fieldCount(fields.count) }
        let code = fields[0]
        guard (1...3).contains(code.utf8.count), Self.isDigits(code), code.utf8.first != UInt8(ascii: "0") else {
            throw .callingCode(String(code))
        }
        let digits = fields.count == 3 ? fields[1] : ""
        guard fields.count == 2 || ((1...8).contains(digits.utf8.count) && Self.isDigits(digits)) else {
            throw .leadingDigits(String(digits))
        }
        let region = fields[fields.count - 1]
        guard Self.isRegion(region) else { throw .region(String(region)) }
        callingCode = String(code)
        leadingDigits = String(digits)
        self.region = String(region)
    }

    /// Whether the text is non-empty and all ASCII digits.
    private static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Whether the text is two ASCII upper-case letters or `001`.
    private static func isRegion(_ text: Substring) -> Bool {
        text == "001"
            || (text.utf8.count == 2 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
    }
}
