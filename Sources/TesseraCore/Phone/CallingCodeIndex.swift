/// `CallingCodeTable` parsed into a lookup: the calling code of an E.164 number's digits, then the longest listed
/// leading digits of its national number.
struct CallingCodeIndex: Sendable {
    /// The index of `CallingCodeTable.text`, parsed on first use (a `static let`: once, thread-safe).
    static let shared = CallingCodeIndex(parsing: CallingCodeTable.text)

    /// The well-formed entries, in table order.
    let entries: [CallingCodeEntry]
    /// The malformed lines (1-based line number and the rule broken), left out of the lookup. The table's own test
    /// requires none.
    let malformedLines: [MalformedLine]
    /// Region by leading digits (`""` for the whole code), by calling code. The first of duplicate entries wins.
    private let regionsByCallingCode: [String: [String: String]]
    /// The length of the longest leading digits listed, by calling code.
    private let longestLeadingDigits: [String: Int]

    /// A line of the table that does not parse.
    struct MalformedLine: Hashable, Sendable {
        /// The 1-based line number in the text.
        let lineNumber: Int
        /// The rule the line breaks.
        let error: CallingCodeLineError
    }

    /// Parses every line of the text; a malformed line is recorded in `malformedLines` and otherwise ignored.
    init(parsing text: String) {
        var entries: [CallingCodeEntry] = []
        var malformedLines: [MalformedLine] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, line) in lines.enumerated() where !line.isEmpty && !line.hasPrefix("#") {
            do {
                entries.append(try CallingCodeEntry(line: line))
            } catch {
                malformedLines.append(MalformedLine(lineNumber: offset + 1, error: error))
            }
        }
        var regionsByCallingCode: [String: [String: String]] = [:]
        var longestLeadingDigits: [String: Int] = [:]
        for entry in entries where regionsByCallingCode[entry.callingCode]?[entry.leadingDigits] == nil {
            regionsByCallingCode[entry.callingCode, default: [:]][entry.leadingDigits] = entry.region
            longestLeadingDigits[entry.callingCode] = max(
                longestLeadingDigits[entry.callingCode] ?? 0, entry.leadingDigits.utf8.count
            )
        }
        self.entries = entries
        self.malformedLines = malformedLines
        self.regionsByCallingCode = regionsByCallingCode
        self.longestLeadingDigits = longestLeadingDigits
    }

    /// The region of the number whose digits (after `+`) are given: the entry of its calling code with the longest
    /// leading digits its national number starts with, else the code's whole-code entry; nil when no calling code
    /// of the table starts the digits, or the code has no entry that matches.
    ///
    /// Calling codes are prefix-free (no code starts another), so at most one of the 1-, 2- and 3-digit prefixes is a
    /// code.
    func region(ofDigits digits: Substring) -> String? {
        for codeLength in 1...3 where codeLength < digits.count {
            let callingCode = String(digits.prefix(codeLength))
            guard let regions = regionsByCallingCode[callingCode] else { continue }
            let national = digits.dropFirst(codeLength)
            var length = min(national.count, longestLeadingDigits[callingCode] ?? 0)
            while length > 0 {
                if let region = regions[String(national.prefix(length))] { return region }
                length -= 1
            }
            return regions[""]
        }
        return nil
    }
}
