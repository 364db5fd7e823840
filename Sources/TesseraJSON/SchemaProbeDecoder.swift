/// The decoder of a schema probe. While learning it records into a ``SchemaShape`` what the type asks for; while
/// producing (``shape`` is nil) it answers with made-up values so a containing type can be built.
final class SchemaProbeDecoder: Decoder, SingleValueDecodingContainer {
    let context: SchemaProbeContext
    /// Where to record; nil while producing.
    let shape: SchemaShape?
    let codingPath: [any CodingKey]

    init(context: SchemaProbeContext, learning shape: SchemaShape?, codingPath: [any CodingKey]) {
        self.context = context
        self.shape = shape
        self.codingPath = codingPath
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        shape?.becomeObject()
        return KeyedDecodingContainer(
            SchemaProbeKeyedContainer<Key>(context: context, shape: shape, codingPath: codingPath)
        )
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        shape?.becomeArray()
        return SchemaProbeUnkeyedContainer(context: context, shape: shape, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// While learning, values are never null, so optionals get probed; while producing, they are all null.
    func decodeNil() -> Bool { shape == nil }

    func decode(_ type: Bool.Type) throws -> Bool {
        shape?.kind = .fixed(["type": "boolean"])
        return false
    }

    func decode(_ type: String.Type) throws -> String {
        shape?.kind = .fixed(["type": "string"])
        return ""
    }

    func decode(_ type: Double.Type) throws -> Double {
        shape?.kind = .fixed(["type": "number"])
        return 0
    }

    func decode(_ type: Float.Type) throws -> Float {
        shape?.kind = .fixed(["type": "number"])
        return 0
    }

    func decode(_ type: Int.Type) throws -> Int {
        shape?.kind = .fixed(["type": "integer"])
        return 0
    }

    func decode(_ type: Int8.Type) throws -> Int8 {
        shape?.kind = .fixed(["type": "integer"])
        return 0
    }

    func decode(_ type: Int16.Type) throws -> Int16 {
        shape?.kind = .fixed(["type": "integer"])
        return 0
    }

    func decode(_ type: Int32.Type) throws -> Int32 {
        shape?.kind = .fixed(["type": "integer"])
        return 0
    }

    func decode(_ type: Int64.Type) throws -> Int64 {
        shape?.kind = .fixed(["type": "integer"])
        return 0
    }

    func decode(_ type: UInt.Type) throws -> UInt {
        shape?.kind = .fixed(["type": "integer"])
        return 0
    }

    func decode(_ type: UInt8.Type) throws -> UInt8 {
        shape?.kind = .fixed(["type": "integer"])
        return 0
    }

    func decode(_ type: UInt16.Type) throws -> UInt16 {
        shape?.kind = .fixed(["type": "integer"])
        return 0
    }

    func decode(_ type: UInt32.Type) throws -> UInt32 {
        shape?.kind = .fixed(["type": "integer"])
        return 0
    }

    func decode(_ type: UInt64.Type) throws -> UInt64 {
        shape?.kind = .fixed(["type": "integer"])
        return 0
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let shape {
            shape.kind = .fixed(context.schema(of: T.self))
        }
        return try context.produce(T.self)
    }
}
