/// Parsing of the `Cookie` request field (RFC 6265 §4.2.1, §5.4): `name=value` pairs separated by `;`.
public enum HTTPCookies {
    /// The pairs of one `Cookie` field value, in order, duplicates kept. Whitespace around pairs is dropped, a value
    /// wrapped in double quotes loses them, and pieces without `=` or with an empty name are skipped.
    public static func parse(_ header: String) -> [(name: String, value: String)] {
        var cookies: [(name: String, value: String)] = []
        for pair in Array(header.utf8).split(separator: UInt8(ascii: ";")) {
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = trimmed(pair[..<equals])
            guard !name.isEmpty else { continue }
            var value = trimmed(pair[(equals + 1)...])
            if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                value = value.dropFirst().dropLast()
            }
            cookies.append((name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        }
        return cookies
    }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return bytes[first...last]
    }
}
