/// A type that states its own JSON Schema instead of letting ``JSONSchema/of(_:)`` probe its `init(from:)`.
///
/// Needed for types whose decoding validates the value, which a probe cannot satisfy with made-up values — string
/// enums above all — and for types that accept any JSON. String enums that are `CaseIterable` get both members for
/// free:
///
/// ```swift
/// enum State: String, Codable, CaseIterable, JSONSchemaDescribing { case disabled = "DISABLED", enabled = "ENABLED" }
/// // JSONSchema.of(State.self) == ["type": "string", "enum": ["DISABLED", "ENABLED"]]
/// ```
public protocol JSONSchemaDescribing {
    /// The schema of the type's JSON form.
    static var jsonSchema: JSONValue { get }
    /// Any valid value, handed to types being probed that contain this one.
    static var schemaExample: Self { get }
}

extension JSONSchemaDescribing where Self: CaseIterable & RawRepresentable, RawValue == String {
    /// `{"type": "string", "enum": [raw values in declaration order]}`.
    public static var jsonSchema: JSONValue {
        ["type": "string", "enum": .array(allCases.map { .string($0.rawValue) })]
    }

    /// The first case (an enum with a raw type always has one).
    public static var schemaExample: Self {
        allCases[allCases.startIndex]
    }
}

extension JSONValue: JSONSchemaDescribing {
    /// `{}`: any JSON value.
    public static var jsonSchema: JSONValue { [:] }
    /// `null`.
    public static var schemaExample: JSONValue { .null }
}

extension JSONObject: JSONSchemaDescribing {
    /// `{"type": "object"}` with any members.
    public static var jsonSchema: JSONValue { ["type": "object"] }
    /// `{}`.
    public static var schemaExample: JSONObject { JSONObject() }
}
