/// Encodes `Encodable` types into a ``JSONValue``.
///
/// Object members keep the order in which the type encoded them (synthesized conformances encode in declaration
/// order); a key encoded twice keeps its first position and its last value. `nil` optionals are omitted, as
/// synthesized `encodeIfPresent` calls do; an explicit `encodeNil` writes `null`. A value that encodes nothing
/// becomes `{}`. Integers become ``JSONValue/integer(_:)`` (unsigned ones above `Int64.max` are an error);
/// non-finite floating-point numbers are an error.
public struct JSONValueEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// Encodes a value.
    public func encode<T: Encodable>(_ value: T) throws(JSONEncodingError) -> JSONValue {
        if let direct = value as? JSONValue {
            return direct
        }
        let encoder = JSONValueEncoderImpl(node: EncodingNode(), codingPath: [])
        do {
            try value.encode(to: encoder)
        } catch {
            throw JSONEncodingError(wrapping: error, codingPath: [])
        }
        return encoder.node.resolve()
    }
}
