/// Parsing of the `Cookie` request field (RFC 6265 §4.2.1, §5.4): `name=value` pairs separated by `;`.
public enum HTTPCookies {
    /// The pairs of one `Cookie` field value, in order, duplicates kept. Whitespace around pairs is dropped, a value
    /// wrapped in double quotes loses them, and pieces without `=` or with an empty name are skipped.
    public static func parse(_ header: String) -> [(name: String, value: String)] {
        var cookies: [(name: String, value: String)] = []
        var header = header
        header.withUTF8 { field in
            forEachPair(in: field) { name, value in
                cookies.append(
                    (name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
                return false
            }
        }
        return cookies
    }

    /// The value of the first cookie named `name` in one `Cookie` field value, read as ``parse(_:)`` reads it, or nil:
    /// the field is scanned for that one name, without making a string of every other pair.
    public static func value(named name: String, in header: String) -> String? {
        var found: String?
        var header = header
        var name = name
        header.withUTF8 { field in
            name.withUTF8 { name in
                forEachPair(in: field) { pairName, value in
                    guard pairName.elementsEqual(name) else { return false }
                    found = String(decoding: value, as: UTF8.self)
                    return true
                }
            }
        }
        return found
    }

    /// Calls `body` with the name and value of each pair of `field` in order, until it returns true. Whitespace around
    /// both is dropped, a value wrapped in double quotes loses them, and pieces without `=` or with an empty name are
    /// skipped.
    private static func forEachPair(
        in field: UnsafeBufferPointer<UInt8>,
        _ body: (Slice<UnsafeBufferPointer<UInt8>>, Slice<UnsafeBufferPointer<UInt8>>) -> Bool
    ) {
        var start = field.startIndex
        while start < field.endIndex {
            let end = field[start...].firstIndex(of: UInt8(ascii: ";")) ?? field.endIndex
            let pair = field[start..<end]
            start = end + 1
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = trimmed(pair[..<equals])
            guard !name.isEmpty else { continue }
            var value = trimmed(pair[(equals + 1)...])
            if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                value = value.dropFirst().dropLast()
            }
            if body(name, value) { return }
        }
    }

    private static func trimmed<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bytes.SubSequence {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }
}
