/// Parsing of the `Cookie` request field (RFC 6265 §4.2.1, §5.4): `name=value` pairs separated by `;`.
public enum HTTPCookies {
    /// The pairs of one `Cookie` field value, in order, duplicates kept. Whitespace around pairs is dropped, a value
    /// wrapped in double quotes loses them, and pieces without `=` or with an empty name are skipped.
    public static func parse(_ header: String) -> [(name: String, value: String)] {
        var cookies: [(name: String, value: String)] = []
        for piece in header.split(separator: ";", omittingEmptySubsequences: true) {
            let pair = trimmed(piece)
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = trimmed(pair[..<equals])
            guard !name.isEmpty else { continue }
            var value = trimmed(pair[pair.index(after: equals)...])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = value.dropFirst().dropLast()
            }
            cookies.append((name: String(name), value: String(value)))
        }
        return cookies
    }

    static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
            let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return text[first...last]
    }
}
