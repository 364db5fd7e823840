/// What a schema probe learned about one value, rendered to a JSON Schema once the probe is over.
final class SchemaShape {
    /// The key under which a map's value type is probed.
    static let mapKey = "*"

    enum Kind {
        /// Nothing was asked: any value.
        case unknown
        /// A finished schema (scalars, self-describing or already-probed types).
        case fixed(JSONValue)
        /// A keyed container was opened.
        case object
        /// An unkeyed container was opened.
        case array
    }

    var kind = Kind.unknown
    /// Set when the type's decoding stopped early, so its object may have members nobody saw.
    var isIncomplete = false
    /// Properties in the order they were asked for.
    private var properties: [(key: String, shape: SchemaShape)] = []
    /// Properties asked for with `decode` (and not with `contains`, `decodeNil` or `decodeIfPresent`).
    private var requiredKeys: Set<String> = []
    private var optionalKeys: Set<String> = []
    /// Set when `allKeys` was read: the object is a map.
    var isMap = false
    private var mapValue: SchemaShape?
    /// The element shape of an array.
    var items: SchemaShape?

    /// Makes this shape an object unless it already is one.
    func becomeObject() {
        if case .object = kind { return }
        kind = .object
    }

    /// Makes this shape an array unless it already is one.
    func becomeArray() {
        if case .array = kind { return }
        kind = .array
    }

    /// Records a property (or, for a map's probe key, the map's value shape).
    func record(_ key: String, _ shape: SchemaShape, required: Bool) {
        if isMap, key == SchemaShape.mapKey {
            mapValue = shape
            return
        }
        if let position = properties.firstIndex(where: { $0.key == key }) {
            properties[position].shape = shape
        } else {
            properties.append((key: key, shape: shape))
        }
        if required { requiredKeys.insert(key) } else { optionalKeys.insert(key) }
    }

    /// Marks a property as optional even if it is later decoded with `decode`.
    func markOptional(_ key: String) {
        optionalKeys.insert(key)
    }

    /// The JSON Schema.
    func render() -> JSONValue {
        switch kind {
        case .unknown:
            return [:]
        case .fixed(let schema):
            return schema
        case .array:
            return ["type": "array", "items": items?.render() ?? [:]]
        case .object where isMap:
            return ["type": "object", "additionalProperties": mapValue?.render() ?? [:]]
        case .object:
            var schema: JSONObject = ["type": "object"]
            schema["properties"] = .object(JSONObject(properties.map { (key: $0.key, value: $0.shape.render()) }))
            let required = properties.map(\.key).filter { requiredKeys.contains($0) && !optionalKeys.contains($0) }
            if !required.isEmpty {
                schema["required"] = .array(required.map { .string($0) })
            }
            if !isIncomplete {
                schema["additionalProperties"] = false
            }
            return .object(schema)
        }
    }
}

extension SchemaShape {
    /// A shape holding a finished schema.
    convenience init(_ schema: JSONValue) {
        self.init()
        kind = .fixed(schema)
    }
}
