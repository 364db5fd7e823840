/// A strict RFC 8259 JSON parser working directly on UTF-8 bytes.
///
/// Strict means: the input must be valid UTF-8; only the four RFC whitespace bytes are skipped; numbers follow the
/// RFC grammar exactly (no leading zeros, no `+`, no `NaN` or `Infinity`, no bare `.5`); strings accept only the
/// RFC escapes, and `\u` surrogates must come in pairs; there are no trailing commas, no comments and nothing but
/// whitespace after the value; an object may not repeat a key (an ambiguous request must not reach a handler); and
/// arrays and objects may nest at most ``maxDepth`` levels. Every fault is a ``JSONParseError`` with its byte offset.
public struct JSONParser: Sendable {
    /// The nesting limit used unless another is given.
    public static let defaultMaxDepth = 64

    /// How many arrays and objects may nest inside each other; deeper input is rejected.
    public var maxDepth: Int

    /// Creates a parser with a nesting limit.
    public init(maxDepth: Int = JSONParser.defaultMaxDepth) {
        self.maxDepth = maxDepth
    }

    /// Parses one JSON value that makes up the whole input, surrounded by optional whitespace.
    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses one JSON value that makes up the whole input, surrounded by optional whitespace.
    public func parse(_ buffer: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        let result = buffer.withMemoryRebound(to: UInt8.self) { bytes in
            Result { () throws(JSONParseError) -> JSONValue in try parse(bytes) }
        }
        return try result.get()
    }

    /// Parses one JSON value that makes up the whole input, surrounded by optional whitespace.
    public func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var state = JSONParserState(bytes: bytes, maxDepth: maxDepth)
        return try state.parseDocument()
    }
}
