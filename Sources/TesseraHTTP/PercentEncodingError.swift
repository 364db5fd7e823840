/// Why percent-encoded text could not be decoded.
public enum PercentEncodingError: Error, Hashable, Sendable {
    /// A `%` at this byte offset is not followed by two hexadecimal digits.
    case invalidEscape(offset: Int)
    /// The decoded bytes are not valid UTF-8.
    case invalidUTF8
    /// The decoded text holds a NUL character.
    case nulCharacter

    /// A one-line explanation, safe to send to a client.
    public var reason: String {
        switch self {
        case .invalidEscape(let offset): "invalid percent escape at offset \(offset)"
        case .invalidUTF8: "percent-decoded text is not valid UTF-8"
        case .nulCharacter: "percent-decoded text holds a NUL character"
        }
    }
}
