/// JSON Schema generation for `Decodable` types, used to describe RPC methods in the OpenRPC document.
public enum JSONSchema {
    /// The schema of a type's JSON form, found by running its `init(from:)` against a probing decoder that records
    /// what it asks for:
    /// - `String` → `{"type":"string"}`, integer types → `"integer"`, `Double`/`Float` → `"number"`, `Bool` →
    ///   `"boolean"`;
    /// - keyed containers → `{"type":"object","properties":…,"required":[…],"additionalProperties":false}`, where
    ///   `decode` makes a property required and `decodeIfPresent` (optionals), `contains` or `decodeNil` optional;
    /// - unkeyed containers → `{"type":"array","items":…}`;
    /// - containers whose `allKeys` is read (dictionaries) → `{"type":"object","additionalProperties":…}`;
    /// - ``JSONSchemaDescribing`` types → their own schema.
    ///
    /// The probe never fails: what it cannot learn is `{}` (any value). When a type's decoding stops early (it
    /// rejected a made-up value), the object it was describing loses `"additionalProperties": false`, because
    /// members after the failure are unknown. Recursive types describe their recursion as `{}`.
    public static func of<T: Decodable>(_ type: T.Type) -> JSONValue {
        SchemaProbeContext().schema(of: T.self)
    }
}
