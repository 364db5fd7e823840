/// An unkeyed container over a JSON array.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    let usage: DecodingUsage?
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey], usage: DecodingUsage?) {
        self.elements = elements
        self.codingPath = codingPath
        self.usage = usage
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The current element; the index moves past it.
    private mutating func next() throws -> JSONValue {
        guard !isAtEnd else {
            throw JSONDecodingError(.missingField, at: JSONPath(codingPath: codingPath + [JSONIndexKey(currentIndex)]))
        }
        defer { currentIndex += 1 }
        return elements[currentIndex]
    }

    /// A decoder for the current element; the index moves past it.
    private mutating func nextDecoder() throws -> JSONValueDecoderImpl {
        let index = currentIndex
        let value = try next()
        return JSONValueDecoderImpl(
            value: value, codingPath: codingPath + [JSONIndexKey(index)], usage: usage?.child(index, of: elements.count)
        )
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        guard elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        try JSONScalarDecoding.bool(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: String.Type) throws -> String {
        try JSONScalarDecoding.string(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        try JSONScalarDecoding.double(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        try JSONScalarDecoding.float(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        try JSONScalarDecoding.integer(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        try JSONScalarDecoding.integer(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        try JSONScalarDecoding.integer(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        try JSONScalarDecoding.integer(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        try JSONScalarDecoding.integer(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: UInt.Type) throws -> UInt {
        try JSONScalarDecoding.integer(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        try JSONScalarDecoding.integer(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        try JSONScalarDecoding.integer(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        try JSONScalarDecoding.integer(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        try JSONScalarDecoding.integer(next(), codingPath + [JSONIndexKey(currentIndex - 1)])
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try nextDecoder().decodeValue(T.self)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try nextDecoder().container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextDecoder().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try nextDecoder()
    }
}
