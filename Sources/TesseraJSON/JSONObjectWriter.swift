/// Writes one JSON object member by member, straight into a ``JSONWriter``'s bytes: for documents written on every
/// request (token payloads, the token response), where building a `JSONValue` tree first would cost more than
/// writing. Members come out in the order they are given; a member whose value is nil is left out.
public struct JSONObjectWriter: Sendable {
    private var writer: JSONWriter
    private var isEmpty = true

    /// Starts an object, with room for `capacity` bytes before the writer must grow.
    public init(reservingCapacity capacity: Int = 256) {
        writer = JSONWriter(reservingCapacity: capacity)
        writer.writeRaw("{")
    }

    /// A string member, unless `value` is nil. `name` is written as it is: a literal that needs no escaping.
    public mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        open(name)
        writer.writeString(value)
    }

    /// An integer member, unless `value` is nil.
    public mutating func member(_ name: StaticString, _ value: Int64?) {
        guard let value else { return }
        open(name)
        writer.writeInteger(value)
    }

    /// A boolean member, unless `value` is nil.
    public mutating func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        open(name)
        writer.writeRaw(value ? "true" : "false")
    }

    /// An array-of-strings member, unless `values` is nil.
    public mutating func member(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        open(name)
        writer.writeRaw("[")
        for (index, value) in values.enumerated() {
            if index > 0 { writer.writeRaw(",") }
            writer.writeString(value)
        }
        writer.writeRaw("]")
    }

    /// Closes the object and returns its text.
    public consuming func finish() -> [UInt8] {
        writer.writeByte(ASCII.closeBrace)
        return writer.bytes
    }

    /// Writes the separator and `"name":`, the punctuation a byte at a time (each `writeRaw` of a literal copies
    /// through `Array.append(contentsOf:)`, about 90 instructions under callgrind; a byte's append about 20, and a
    /// token response and its two tokens open about 27 members).
    private mutating func open(_ name: StaticString) {
        if !isEmpty { writer.writeByte(ASCII.comma) }
        isEmpty = false
        writer.writeByte(ASCII.quote)
        writer.writeRaw(name)
        writer.writeByte(ASCII.quote)
        writer.writeByte(ASCII.colon)
    }
}
