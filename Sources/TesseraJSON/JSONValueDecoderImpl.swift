/// The `Decoder` behind ``JSONValueDecoder``: one per decoded value, also serving as its single-value container.
final class JSONValueDecoderImpl: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let usage: DecodingUsage?

    init(value: JSONValue, codingPath: [any CodingKey], usage: DecodingUsage?) {
        self.value = value
        self.codingPath = codingPath
        self.usage = usage
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Decodes `T` from this decoder's value, taking ``JSONValue`` and ``JSONObject`` directly and giving every
    /// error a path.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self, let whole = value as? T {
            return whole
        }
        if T.self == JSONObject.self {
            guard case .object(let object) = value else { throw mismatch("an object") }
            if let whole = object as? T { return whole }
        }
        do {
            return try T(from: self)
        } catch {
            throw JSONDecodingError(wrapping: error, codingPath: codingPath)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch("an object") }
        usage?.openedAsObject = true
        return KeyedDecodingContainer(
            JSONKeyedDecodingContainer<Key>(object: object, codingPath: codingPath, usage: usage)
        )
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch("an array") }
        return JSONUnkeyedDecodingContainer(elements: elements, codingPath: codingPath, usage: usage)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    private func mismatch(_ expected: String) -> JSONDecodingError {
        JSONDecodingError(.typeMismatch(expected: expected), at: JSONPath(codingPath: codingPath))
    }

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try JSONScalarDecoding.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try JSONScalarDecoding.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try JSONScalarDecoding.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try JSONScalarDecoding.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try JSONScalarDecoding.integer(value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try JSONScalarDecoding.integer(value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try JSONScalarDecoding.integer(value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try JSONScalarDecoding.integer(value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try JSONScalarDecoding.integer(value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try JSONScalarDecoding.integer(value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try JSONScalarDecoding.integer(value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try JSONScalarDecoding.integer(value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try JSONScalarDecoding.integer(value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try JSONScalarDecoding.integer(value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(T.self) }
}

/// Strict conversions from JSON scalars to Swift's; the path is built only when there is an error to report.
enum JSONScalarDecoding {
    static func bool(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch("a boolean", path()) }
        return flag
    }

    static func string(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let text) = value else { throw mismatch("a string", path()) }
        return text
    }

    static func double(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch value {
        case .integer(let number): return Double(number)
        case .double(let number): return number
        default: throw mismatch("a number", path())
        }
    }

    static func float(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Float {
        let number = try double(value, path())
        guard number.magnitude <= Double(Float.greatestFiniteMagnitude) else {
            throw JSONDecodingError(.outOfRange, at: JSONPath(codingPath: path()))
        }
        return Float(number)
    }

    static func integer<Integer: FixedWidthInteger>(
        _ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]
    ) throws -> Integer {
        guard case .integer(let number) = value else { throw mismatch("an integer", path()) }
        guard let exact = Integer(exactly: number) else {
            throw JSONDecodingError(.outOfRange, at: JSONPath(codingPath: path()))
        }
        return exact
    }

    private static func mismatch(_ expected: String, _ path: [any CodingKey]) -> JSONDecodingError {
        JSONDecodingError(.typeMismatch(expected: expected), at: JSONPath(codingPath: path))
    }
}
