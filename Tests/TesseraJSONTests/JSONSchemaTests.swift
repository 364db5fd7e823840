import TesseraJSON
import Testing

private enum State: String, Codable, CaseIterable, JSONSchemaDescribing {
    case disabled = "DISABLED"
    case enabled = "ENABLED"
    case mandatory = "MANDATORY"
}

private enum PlainState: String, Codable {
    case on, off
}

private struct TotpProviderConfig: Codable {
    var adjacentIntervals: Int?
}

private struct ProviderConfig: Codable {
    var state: State
    var totpProviderConfig: TotpProviderConfig?
}

private struct MultiFactorAuthConfig: Codable {
    var state: State
    var enabledProviders: [String]?
    var providerConfigs: [ProviderConfig]
    var testPhoneNumbers: [String: String]?
    var ratio: Double
    var enabled: Bool
    var anything: JSONValue?
    var matrix: [[Int]]
}

private struct Node: Codable {
    var name: String
    var children: [Node]
    var parent: Box?
}

private final class Box: Codable {
    let node: Node
}

private struct HasPlainEnum: Codable {
    var first: String
    var state: PlainState
    var last: String
}

private struct Custom: Decodable {
    var count: Int

    enum CodingKeys: String, CodingKey { case legacyCount, count }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.legacyCount) {
            count = try container.decode(Int.self, forKey: .legacyCount)
        } else {
            count = try container.decode(Int.self, forKey: .count)
        }
    }
}

private struct Opaque: Decodable {
    init(from decoder: any Decoder) throws {}
}

@Test func schemaOfScalars() {
    #expect(JSONSchema.of(String.self) == ["type": "string"])
    #expect(JSONSchema.of(Int.self) == ["type": "integer"])
    #expect(JSONSchema.of(UInt8.self) == ["type": "integer"])
    #expect(JSONSchema.of(Double.self) == ["type": "number"])
    #expect(JSONSchema.of(Bool.self) == ["type": "boolean"])
    #expect(JSONSchema.of(String?.self) == ["type": "string"])
    #expect(JSONSchema.of(JSONValue.self) == [:])
    #expect(JSONSchema.of(JSONObject.self) == ["type": "object"])
    #expect(JSONSchema.of(Opaque.self) == [:])
}

@Test func schemaOfNestedStructs() throws {
    let expected: JSONValue = [
        "type": "object",
        "properties": [
            "state": ["type": "string", "enum": ["DISABLED", "ENABLED", "MANDATORY"]],
            "enabledProviders": ["type": "array", "items": ["type": "string"]],
            "providerConfigs": [
                "type": "array",
                "items": [
                    "type": "object",
                    "properties": [
                        "state": ["type": "string", "enum": ["DISABLED", "ENABLED", "MANDATORY"]],
                        "totpProviderConfig": [
                            "type": "object",
                            "properties": ["adjacentIntervals": ["type": "integer"]],
                            "additionalProperties": false,
                        ],
                    ],
                    "required": ["state"],
                    "additionalProperties": false,
                ],
            ],
            "testPhoneNumbers": ["type": "object", "additionalProperties": ["type": "string"]],
            "ratio": ["type": "number"],
            "enabled": ["type": "boolean"],
            "anything": [:],
            "matrix": ["type": "array", "items": ["type": "array", "items": ["type": "integer"]]],
        ],
        "required": ["state", "providerConfigs", "ratio", "enabled", "matrix"],
        "additionalProperties": false,
    ]
    let schema = JSONSchema.of(MultiFactorAuthConfig.self)
    #expect(schema == expected)
    #expect(schema["properties"]?.objectValue?.keys.first == "state")
    #expect(schema["required"] == ["state", "providerConfigs", "ratio", "enabled", "matrix"])
}

@Test func schemaOfRecursiveTypesStops() {
    let schema = JSONSchema.of(Node.self)
    #expect(schema["properties"]?["name"] == ["type": "string"])
    #expect(schema["properties"]?["children"] == ["type": "array", "items": [:]])
    #expect(schema["required"] == ["name", "children"])
    #expect(schema["additionalProperties"] == false)
}

@Test func schemaOfTypesRejectingMadeUpValuesIsPartialButHonest() {
    let schema = JSONSchema.of(HasPlainEnum.self)
    #expect(schema["properties"]?["first"] == ["type": "string"])
    #expect(schema["properties"]?["state"] == ["type": "string"])
    #expect(schema["additionalProperties"] == nil)
    #expect(JSONSchema.of(PlainState.self) == ["type": "string"])
}

@Test func schemaTreatsContainsAsOptional() {
    let schema = JSONSchema.of(Custom.self)
    #expect(schema["properties"]?.objectValue?.keys == ["legacyCount"])
    #expect(schema["required"] == nil)
}

@Test func stringEnumsDescribeThemselves() {
    #expect(State.jsonSchema == ["type": "string", "enum": ["DISABLED", "ENABLED", "MANDATORY"]])
    #expect(State.schemaExample == .disabled)
}
