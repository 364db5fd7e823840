/// The unkeyed container of a schema probe. While learning it pretends to hold one element, whose type becomes the
/// array's `items`; while producing it is empty.
struct SchemaProbeUnkeyedContainer: UnkeyedDecodingContainer {
    let context: SchemaProbeContext
    let shape: SchemaShape?
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0
    /// Whether `isAtEnd` already answered false once; it never does twice, so no decoding loop can run forever.
    private let offer = ElementOffer()

    init(context: SchemaProbeContext, shape: SchemaShape?, codingPath: [any CodingKey]) {
        self.context = context
        self.shape = shape
        self.codingPath = codingPath
    }

    var count: Int? { shape == nil ? 0 : nil }

    var isAtEnd: Bool {
        guard shape != nil, !offer.made else { return true }
        offer.made = true
        return false
    }

    private mutating func learnItems(_ items: SchemaShape) {
        shape?.items = items
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        learnItems(SchemaShape(["type": "boolean"]))
        return false
    }

    mutating func decode(_ type: String.Type) throws -> String {
        learnItems(SchemaShape(["type": "string"]))
        return ""
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        learnItems(SchemaShape(["type": "number"]))
        return 0
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        learnItems(SchemaShape(["type": "number"]))
        return 0
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        learnItems(SchemaShape(["type": "integer"]))
        return 0
    }

    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        learnItems(SchemaShape(["type": "integer"]))
        return 0
    }

    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        learnItems(SchemaShape(["type": "integer"]))
        return 0
    }

    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        learnItems(SchemaShape(["type": "integer"]))
        return 0
    }

    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        learnItems(SchemaShape(["type": "integer"]))
        return 0
    }

    mutating func decode(_ type: UInt.Type) throws -> UInt {
        learnItems(SchemaShape(["type": "integer"]))
        return 0
    }

    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        learnItems(SchemaShape(["type": "integer"]))
        return 0
    }

    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        learnItems(SchemaShape(["type": "integer"]))
        return 0
    }

    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        learnItems(SchemaShape(["type": "integer"]))
        return 0
    }

    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        learnItems(SchemaShape(["type": "integer"]))
        return 0
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if shape != nil {
            learnItems(SchemaShape(context.schema(of: T.self)))
        }
        return try context.produce(T.self)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try childDecoder().container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try childDecoder().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        childDecoder()
    }

    /// A probe decoder for the element, recording into the array's `items` while learning.
    private mutating func childDecoder() -> SchemaProbeDecoder {
        var childShape: SchemaShape?
        if shape != nil {
            let child = SchemaShape()
            learnItems(child)
            childShape = child
        }
        return SchemaProbeDecoder(context: context, learning: childShape, codingPath: codingPath + [JSONIndexKey(0)])
    }
}

/// Whether a learning unkeyed container has offered its one made-up element (`isAtEnd` is a non-mutating getter).
final class ElementOffer {
    var made = false
}
