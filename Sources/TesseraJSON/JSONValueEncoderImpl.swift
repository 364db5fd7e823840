/// The `Encoder` behind ``JSONValueEncoder``: one per encoded value, also serving as its single-value container.
final class JSONValueEncoderImpl: Encoder, SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    init(node: EncodingNode, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Encodes a nested value and returns it finished, taking ``JSONValue`` directly.
    static func encodeChild<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> JSONValue {
        if let direct = value as? JSONValue {
            return direct
        }
        let encoder = JSONValueEncoderImpl(node: EncodingNode(), codingPath: codingPath)
        do {
            try value.encode(to: encoder)
        } catch {
            throw JSONEncodingError(wrapping: error, codingPath: codingPath)
        }
        return encoder.node.resolve()
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return JSONUnkeyedEncodingContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { node.setValue(.null) }
    func encode(_ value: Bool) throws { node.setValue(.bool(value)) }
    func encode(_ value: String) throws { node.setValue(.string(value)) }
    func encode(_ value: Double) throws { node.setValue(try JSONScalarEncoding.double(value, codingPath)) }
    func encode(_ value: Float) throws { node.setValue(try JSONScalarEncoding.float(value, codingPath)) }
    func encode(_ value: Int) throws { node.setValue(.integer(Int64(value))) }
    func encode(_ value: Int8) throws { node.setValue(.integer(Int64(value))) }
    func encode(_ value: Int16) throws { node.setValue(.integer(Int64(value))) }
    func encode(_ value: Int32) throws { node.setValue(.integer(Int64(value))) }
    func encode(_ value: Int64) throws { node.setValue(.integer(Int64(value))) }
    func encode(_ value: UInt) throws { node.setValue(try JSONScalarEncoding.unsigned(value, codingPath)) }
    func encode(_ value: UInt8) throws { node.setValue(.integer(Int64(value))) }
    func encode(_ value: UInt16) throws { node.setValue(.integer(Int64(value))) }
    func encode(_ value: UInt32) throws { node.setValue(.integer(Int64(value))) }
    func encode(_ value: UInt64) throws { node.setValue(try JSONScalarEncoding.unsigned(value, codingPath)) }

    func encode<T: Encodable>(_ value: T) throws {
        node.setValue(try JSONValueEncoderImpl.encodeChild(value, codingPath: codingPath))
    }
}

/// Conversions from Swift's numbers to JSON's, refusing what JSON cannot hold.
enum JSONScalarEncoding {
    static func unsigned<Unsigned: UnsignedInteger & FixedWidthInteger>(
        _ value: Unsigned, _ path: @autoclosure () -> [any CodingKey]
    ) throws -> JSONValue {
        guard let exact = Int64(exactly: value) else {
            throw JSONEncodingError(.outOfRange, at: JSONPath(codingPath: path()))
        }
        return .integer(exact)
    }

    static func double(_ value: Double, _ path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else { throw JSONEncodingError(.nonFiniteNumber, at: JSONPath(codingPath: path())) }
        return .double(value)
    }

    /// Goes through the float's shortest decimal form, so `Float(0.1)` becomes `0.1` and not `0.10000000149011612`.
    static func float(_ value: Float, _ path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else { throw JSONEncodingError(.nonFiniteNumber, at: JSONPath(codingPath: path())) }
        return .double(Double(value.description) ?? Double(value))
    }
}
