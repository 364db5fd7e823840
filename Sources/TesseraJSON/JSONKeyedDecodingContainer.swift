/// A keyed container over a JSON object that records the keys it is asked for.
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let codingPath: [any CodingKey]
    let usage: DecodingUsage?

    var allKeys: [Key] {
        usage?.listedAllKeys = true
        return object.members.compactMap { Key(stringValue: $0.key) }
    }

    func contains(_ key: Key) -> Bool {
        guard let position = object.position(of: key.stringValue) else { return false }
        usage?.markUsed(position, of: object.count)
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try member(key).isNull
    }

    /// The position of a member, marked as used; a missing member is a ``JSONDecodingError/Kind/missingField``
    /// error.
    private func position(of key: Key) throws -> Int {
        guard let position = object.position(of: key.stringValue) else {
            throw JSONDecodingError(.missingField, at: JSONPath(codingPath: codingPath + [key]))
        }
        usage?.markUsed(position, of: object.count)
        return position
    }

    /// The member's value, marked as used; a missing member is a ``JSONDecodingError/Kind/missingField`` error.
    private func member(_ key: Key) throws -> JSONValue {
        try object.members[position(of: key)].value
    }

    /// The position of a member whose value is not `null`, marked as used; nil when absent or `null`.
    private func presentPosition(of key: Key) -> Int? {
        guard let position = object.position(of: key.stringValue) else { return nil }
        usage?.markUsed(position, of: object.count)
        return object.members[position].value.isNull ? nil : position
    }

    /// The member's value, marked as used, or nil when it is absent or `null`.
    private func present(_ key: Key) -> JSONValue? {
        presentPosition(of: key).map { object.members[$0].value }
    }

    /// A decoder for the member at a position.
    private func childDecoder(at position: Int, _ key: some CodingKey) -> JSONValueDecoderImpl {
        JSONValueDecoderImpl(
            value: object.members[position].value, codingPath: codingPath + [key],
            usage: usage?.child(position, of: object.count)
        )
    }

    /// A decoder for a member that may be absent (super-decoders decode `null` then).
    private func childDecoder(for key: some CodingKey) -> JSONValueDecoderImpl {
        guard let position = object.position(of: key.stringValue) else {
            return JSONValueDecoderImpl(value: .null, codingPath: codingPath + [key], usage: nil)
        }
        usage?.markUsed(position, of: object.count)
        return childDecoder(at: position, key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try JSONScalarDecoding.bool(member(key), codingPath + [key])
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try JSONScalarDecoding.string(member(key), codingPath + [key])
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try JSONScalarDecoding.double(member(key), codingPath + [key])
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try JSONScalarDecoding.float(member(key), codingPath + [key])
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try JSONScalarDecoding.integer(member(key), codingPath + [key])
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try JSONScalarDecoding.integer(member(key), codingPath + [key])
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try JSONScalarDecoding.integer(member(key), codingPath + [key])
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try JSONScalarDecoding.integer(member(key), codingPath + [key])
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try JSONScalarDecoding.integer(member(key), codingPath + [key])
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try JSONScalarDecoding.integer(member(key), codingPath + [key])
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try JSONScalarDecoding.integer(member(key), codingPath + [key])
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try JSONScalarDecoding.integer(member(key), codingPath + [key])
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try JSONScalarDecoding.integer(member(key), codingPath + [key])
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try JSONScalarDecoding.integer(member(key), codingPath + [key])
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try childDecoder(at: position(of: key), key).decodeValue(T.self)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try JSONScalarDecoding.bool($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try JSONScalarDecoding.string($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try JSONScalarDecoding.double($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try present(key).map { try JSONScalarDecoding.float($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try JSONScalarDecoding.integer($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try present(key).map { try JSONScalarDecoding.integer($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try present(key).map { try JSONScalarDecoding.integer($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try present(key).map { try JSONScalarDecoding.integer($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try present(key).map { try JSONScalarDecoding.integer($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try present(key).map { try JSONScalarDecoding.integer($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try present(key).map { try JSONScalarDecoding.integer($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try present(key).map { try JSONScalarDecoding.integer($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try present(key).map { try JSONScalarDecoding.integer($0, codingPath + [key]) }
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try present(key).map { try JSONScalarDecoding.integer($0, codingPath + [key]) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentPosition(of: key).map { try childDecoder(at: $0, key).decodeValue(T.self) }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try childDecoder(at: position(of: key), key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try childDecoder(at: position(of: key), key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        childDecoder(for: JSONStringKey("super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        childDecoder(for: key)
    }
}
