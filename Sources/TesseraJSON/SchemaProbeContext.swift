/// Shared state of one schema probe: which types are being described (to stop recursion) and how deep value
/// production has gone.
final class SchemaProbeContext {
    /// Nesting limit for both describing and producing, against pathological generic types.
    static let depthLimit = 32

    /// A made-up value could not be produced; the type being described stops there.
    struct ProductionFailed: Error {}

    private var describing: Set<ObjectIdentifier> = []
    private var describeDepth = 0
    private var produceDepth = 0

    /// The schema of `T`, probing its `init(from:)` unless it describes itself.
    func schema<T: Decodable>(of type: T.Type) -> JSONValue {
        if let describing = T.self as? any JSONSchemaDescribing.Type {
            return describing.jsonSchema
        }
        let identifier = ObjectIdentifier(T.self)
        guard !describing.contains(identifier), describeDepth < SchemaProbeContext.depthLimit else { return [:] }
        describing.insert(identifier)
        describeDepth += 1
        defer {
            describing.remove(identifier)
            describeDepth -= 1
        }
        let shape = SchemaShape()
        do {
            _ = try T(from: SchemaProbeDecoder(context: self, learning: shape, codingPath: []))
        } catch {
            shape.isIncomplete = true
        }
        return shape.render()
    }

    /// A made-up value of `T`: the example of self-describing types, otherwise whatever `init(from:)` builds from
    /// empty strings, zeros, `false`, absent optionals and empty collections.
    func produce<T: Decodable>(_ type: T.Type) throws -> T {
        if let describing = T.self as? any JSONSchemaDescribing.Type {
            guard let example = describing.schemaExample as? T else { throw ProductionFailed() }
            return example
        }
        guard produceDepth < SchemaProbeContext.depthLimit else { throw ProductionFailed() }
        produceDepth += 1
        defer { produceDepth -= 1 }
        return try T(from: SchemaProbeDecoder(context: self, learning: nil, codingPath: []))
    }
}
