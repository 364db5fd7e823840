/// Decodes `Decodable` types from a ``JSONValue``, strictly.
///
/// Strict means: numbers decode into integer types only from ``JSONValue/integer(_:)`` (so `5.5` and `5.0` are
/// rejected where an integer is wanted) and only when they fit; floating-point types accept both kinds of numbers;
/// nothing is converted between strings, numbers and booleans. With ``rejectsUnknownKeys`` (the default), every
/// object member that the type did not ask for — by `decode`, `decodeIfPresent`, `contains` or a nested container —
/// is an error naming its dotted path, at every nesting level, so a typo in a request cannot go unnoticed.
/// Dictionary-typed properties (`[String: X]`) read every key of their object, so all of them count as used.
/// Properties of type ``JSONValue`` or ``JSONObject`` take their value whole, unchecked.
///
/// Every fault is a ``JSONDecodingError`` whose message names the field.
public struct JSONValueDecoder: Sendable {
    /// Whether object members the type did not ask for are an error.
    public var rejectsUnknownKeys: Bool

    /// Creates a decoder.
    public init(rejectsUnknownKeys: Bool = true) {
        self.rejectsUnknownKeys = rejectsUnknownKeys
    }

    /// Decodes a value of type `T`, then (when ``rejectsUnknownKeys`` is on) checks that no member went unused.
    public func decode<T: Decodable>(_ type: T.Type = T.self, from value: JSONValue) throws(JSONDecodingError) -> T {
        let usage = rejectsUnknownKeys ? DecodingUsage() : nil
        let decoder = JSONValueDecoderImpl(value: value, codingPath: [], usage: usage)
        let result: T
        do {
            result = try decoder.decodeValue(T.self)
        } catch {
            throw JSONDecodingError(wrapping: error, codingPath: [])
        }
        if let usage {
            var path: [JSONPath.Component] = []
            if usage.findUnknownField(in: value, path: &path) {
                throw JSONDecodingError(.unknownField, at: JSONPath(path))
            }
        }
        return result
    }
}

extension JSONDecodingError {
    /// Turns whatever a type's `init(from:)` threw into a decoding error with a path: decoding errors pass through,
    /// Swift's `DecodingError`s keep their path and explanation, anything else is an invalid value at `codingPath`.
    init(wrapping error: any Error, codingPath: [any CodingKey]) {
        switch error {
        case let error as JSONDecodingError:
            self = error
        case DecodingError.keyNotFound(let key, let context):
            self.init(.missingField, at: JSONPath(codingPath: context.codingPath + [key]))
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            self.init(.invalidValue(reason: context.debugDescription), at: JSONPath(codingPath: context.codingPath))
        default:
            self.init(.invalidValue(reason: String(describing: error)), at: JSONPath(codingPath: codingPath))
        }
    }
}
