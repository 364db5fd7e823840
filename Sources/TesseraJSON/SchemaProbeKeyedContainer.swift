/// The keyed container of a schema probe: records each key with its schema and whether it is required.
struct SchemaProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let context: SchemaProbeContext
    let shape: SchemaShape?
    let codingPath: [any CodingKey]

    /// Reading the keys makes the object a map; its value type is then probed under one made-up key.
    var allKeys: [Key] {
        guard let shape else { return [] }
        shape.isMap = true
        return [Key(stringValue: SchemaShape.mapKey)].compactMap { $0 }
    }

    func contains(_ key: Key) -> Bool {
        shape?.markOptional(key.stringValue)
        return shape != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        shape?.markOptional(key.stringValue)
        return shape == nil
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        shape?.record(key.stringValue, SchemaShape(["type": "boolean"]), required: true)
        return false
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        shape?.record(key.stringValue, SchemaShape(["type": "string"]), required: true)
        return ""
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        shape?.record(key.stringValue, SchemaShape(["type": "number"]), required: true)
        return 0
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        shape?.record(key.stringValue, SchemaShape(["type": "number"]), required: true)
        return 0
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: true)
        return 0
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: true)
        return 0
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: true)
        return 0
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: true)
        return 0
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: true)
        return 0
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: true)
        return 0
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: true)
        return 0
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: true)
        return 0
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: true)
        return 0
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: true)
        return 0
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        shape?.record(key.stringValue, SchemaShape(context.schema(of: T.self)), required: true)
        return try context.produce(T.self)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        shape?.record(key.stringValue, SchemaShape(["type": "boolean"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        shape?.record(key.stringValue, SchemaShape(["type": "string"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        shape?.record(key.stringValue, SchemaShape(["type": "number"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        shape?.record(key.stringValue, SchemaShape(["type": "number"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: false)
        return nil
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        shape?.record(key.stringValue, SchemaShape(["type": "integer"]), required: false)
        return nil
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        shape?.record(key.stringValue, SchemaShape(context.schema(of: T.self)), required: false)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try childDecoder(for: key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try childDecoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        childDecoder(for: JSONStringKey("super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        childDecoder(for: key)
    }

    /// A probe decoder for a member, recording into a new required property while learning.
    private func childDecoder(for key: some CodingKey) -> SchemaProbeDecoder {
        var childShape: SchemaShape?
        if let shape {
            let child = SchemaShape()
            shape.record(key.stringValue, child, required: true)
            childShape = child
        }
        return SchemaProbeDecoder(context: context, learning: childShape, codingPath: codingPath + [key])
    }
}
