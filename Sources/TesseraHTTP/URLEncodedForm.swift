#if canImport(Glibc)
import Glibc
#endif

/// An ordered list of name-value pairs from a query string or an `application/x-www-form-urlencoded` body.
/// Repeated names are kept, in order.
public struct URLEncodedForm: Sendable {
    /// The pairs in the order they appeared.
    public var fields: [(name: String, value: String)]

    /// Creates a form from pairs, keeping their order.
    public init(fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// Parses `a=1&b=two+words&a=%2B`: pairs split on `&`, empty pairs skipped, a pair without `=` has an empty
    /// value, `+` is a space, `%XX` is decoded. Throws on a bad escape or non-UTF-8 result.
    public init(parsing text: some StringProtocol) throws(PercentEncodingError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Parses a request body as ``init(parsing:)-(StringProtocol)`` does; bytes that are not UTF-8 throw
    /// ``PercentEncodingError/invalidUTF8``.
    public init(parsing body: [UInt8]) throws(PercentEncodingError) {
        fields = []
        try body.withUnsafeBufferPointer { body throws(PercentEncodingError) in
            // Room for the pairs at once, up to a bound: a body of a million `&` holds no pair, and must not reserve
            // a million.
            var separators = 0
            var searched = 0
            while separators + 1 < Self.reservedPairs,
                let separator = Self.firstIndex(of: UInt8(ascii: "&"), in: body, searched..<body.count)
            {
                separators += 1
                searched = separator + 1
            }
            fields.reserveCapacity(separators + 1)
            func decoded(_ part: Range<Int>) throws(PercentEncodingError) -> String {
                try PercentEncoding.decode(UnsafeBufferPointer(rebasing: body[part]), plusAsSpace: true)
            }
            // Each pair's end and its first `=` are found with `memchr`, and its parts decoded from the body in place
            // (byte by byte the search took about 5 instructions a byte under callgrind, for a form's hundreds).
            var start = 0
            while start < body.count {
                let end = Self.firstIndex(of: UInt8(ascii: "&"), in: body, start..<body.count) ?? body.count
                defer { start = end + 1 }
                guard end > start else { continue }
                let equals = Self.firstIndex(of: UInt8(ascii: "="), in: body, start..<end)
                let name = try decoded(start..<(equals ?? end))
                let value = try equals.map { equals throws(PercentEncodingError) in try decoded((equals + 1)..<end) }
                fields.append((name: name, value: value ?? ""))
            }
        }
    }

    /// The offset of the first `byte` of `bytes` in `range`, nil when there is none.
    private static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, let base = bytes.baseAddress,
            let found = memchr(base + range.lowerBound, Int32(byte), range.count)
        else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }

    /// The most pairs a parse makes room for before it sees them; more grow the list as they come.
    static let reservedPairs = 32

    /// The first name that appears a second time, nil when none does. Names are compared with those before them in
    /// a form of a few fields (an OAuth request has about ten), through a set in a longer one, so that a form of
    /// many fields costs no more than hashing each name once.
    public var firstRepeatedName: String? {
        if fields.count > 16 {
            var seen = Set<String>(minimumCapacity: fields.count)
            return fields.first { !seen.insert($0.name).inserted }?.name
        }
        for index in fields.indices where fields[..<index].contains(where: { $0.name == fields[index].name }) {
            return fields[index].name
        }
        return nil
    }

    /// The first value of `name`, if present.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    public func values(of name: String) -> [String] {
        fields.compactMap { $0.name == name ? $0.value : nil }
    }

    /// Appends a pair.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// The form as `a=1&b=two%20words`, every name and value percent-encoded.
    public var encoded: String {
        var bytes: [UInt8] = []
        // Room for the form without escapes; an escape grows it.
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 })
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            PercentEncoding.append(encodingOf: field.name, to: &bytes)
            bytes.append(UInt8(ascii: "="))
            PercentEncoding.append(encodingOf: field.value, to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
