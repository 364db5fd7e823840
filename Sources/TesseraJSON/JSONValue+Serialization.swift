extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value, as ``JSONWriter`` writes it.
    public var description: String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// The compact JSON text of the value as UTF-8 bytes.
    public func serialized() -> [UInt8] {
        JSONWriter.serialize(self)
    }

    /// Parses JSON text with the default ``JSONParser``.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self = try JSONParser().parse(bytes)
    }

    /// Parses JSON text given as a string with the default ``JSONParser``.
    public init(parsing text: String) throws(JSONParseError) {
        self = try JSONParser().parse(Array(text.utf8))
    }
}
