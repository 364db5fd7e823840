/// A keyed container that writes members into an object node.
struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.null))
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.bool(value)))
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.string(value)))
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(try JSONScalarEncoding.double(value, codingPath + [key])))
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(try JSONScalarEncoding.float(value, codingPath + [key])))
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.integer(Int64(value))))
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.integer(Int64(value))))
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.integer(Int64(value))))
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.integer(Int64(value))))
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.integer(Int64(value))))
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(try JSONScalarEncoding.unsigned(value, codingPath + [key])))
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.integer(Int64(value))))
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.integer(Int64(value))))
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(.integer(Int64(value))))
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        node.setMember(key.stringValue, .value(try JSONScalarEncoding.unsigned(value, codingPath + [key])))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let encoded = try JSONValueEncoderImpl.encodeChild(value, codingPath: codingPath + [key])
        node.setMember(key.stringValue, .value(encoded))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        childEncoder(for: key).container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        childEncoder(for: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        childEncoder(for: JSONStringKey("super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        childEncoder(for: key)
    }

    /// An encoder for a member that is filled in later, through the containers it hands out.
    private func childEncoder(for key: some CodingKey) -> JSONValueEncoderImpl {
        let child = EncodingNode()
        node.setMember(key.stringValue, .node(child))
        return JSONValueEncoderImpl(node: child, codingPath: codingPath + [key])
    }
}
