/// An unkeyed container that appends elements to an array node.
struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    var count: Int { node.elementCount }

    /// The coding path of the element about to be appended.
    private var elementPath: [any CodingKey] { codingPath + [JSONIndexKey(node.elementCount)] }

    mutating func encodeNil() throws {
        node.appendElement(.value(.null))
    }

    mutating func encode(_ value: Bool) throws {
        node.appendElement(.value(.bool(value)))
    }

    mutating func encode(_ value: String) throws {
        node.appendElement(.value(.string(value)))
    }

    mutating func encode(_ value: Double) throws {
        node.appendElement(.value(try JSONScalarEncoding.double(value, elementPath)))
    }

    mutating func encode(_ value: Float) throws {
        node.appendElement(.value(try JSONScalarEncoding.float(value, elementPath)))
    }

    mutating func encode(_ value: Int) throws {
        node.appendElement(.value(.integer(Int64(value))))
    }

    mutating func encode(_ value: Int8) throws {
        node.appendElement(.value(.integer(Int64(value))))
    }

    mutating func encode(_ value: Int16) throws {
        node.appendElement(.value(.integer(Int64(value))))
    }

    mutating func encode(_ value: Int32) throws {
        node.appendElement(.value(.integer(Int64(value))))
    }

    mutating func encode(_ value: Int64) throws {
        node.appendElement(.value(.integer(Int64(value))))
    }

    mutating func encode(_ value: UInt) throws {
        node.appendElement(.value(try JSONScalarEncoding.unsigned(value, elementPath)))
    }

    mutating func encode(_ value: UInt8) throws {
        node.appendElement(.value(.integer(Int64(value))))
    }

    mutating func encode(_ value: UInt16) throws {
        node.appendElement(.value(.integer(Int64(value))))
    }

    mutating func encode(_ value: UInt32) throws {
        node.appendElement(.value(.integer(Int64(value))))
    }

    mutating func encode(_ value: UInt64) throws {
        node.appendElement(.value(try JSONScalarEncoding.unsigned(value, elementPath)))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        node.appendElement(.value(try JSONValueEncoderImpl.encodeChild(value, codingPath: elementPath)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        childEncoder().container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        childEncoder().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        childEncoder()
    }

    /// An encoder for an element that is filled in later, through the containers it hands out.
    private func childEncoder() -> JSONValueEncoderImpl {
        let path = elementPath
        let child = EncodingNode()
        node.appendElement(.node(child))
        return JSONValueEncoderImpl(node: child, codingPath: path)
    }
}
