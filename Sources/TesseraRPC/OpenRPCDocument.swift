import TesseraJSON

/// Builds the OpenRPC 1.2 document that `rpc.discover` returns.
enum OpenRPCDocument {
    static let version = "1.2.6"

    /// `{"openrpc", "info": {title, version}, "methods": [...]}`, methods in the given order; each method's params
    /// are the top-level properties of its params schema, in order.
    static func build(title: String, version: String, methods: [RPCMethod]) -> JSONValue {
        [
            "openrpc": .string(OpenRPCDocument.version),
            "info": ["title": .string(title), "version": .string(version)],
            "methods": .array(methods.map(describe)),
        ]
    }

    private static func describe(_ method: RPCMethod) -> JSONValue {
        [
            "name": .string(method.name),
            "summary": .string(method.summary),
            "paramStructure": "by-name",
            "params": .array(params(of: method.paramsSchema)),
            "result": ["name": "result", "schema": method.resultSchema],
        ]
    }

    private static func params(of schema: JSONValue) -> [JSONValue] {
        guard let properties = schema["properties"]?.objectValue else { return [] }
        let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        return properties.members.map { member in
            ["name": .string(member.key), "required": .bool(required.contains(member.key)), "schema": member.value]
        }
    }
}
