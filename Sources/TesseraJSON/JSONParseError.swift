/// Why a text is not acceptable JSON, and the byte offset where the parser noticed it.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of faults the strict parser reports.
    public enum Kind: Sendable, Hashable {
        /// The input has no value at all (empty or only whitespace).
        case emptyInput
        /// The input ended inside a value.
        case unexpectedEndOfInput
        /// A byte that cannot appear here; `expected` says what could.
        case unexpectedByte(UInt8, expected: String)
        /// A number that breaks RFC 8259's grammar (leading zero, missing digits, ...).
        case invalidNumber(String)
        /// A number whose magnitude does not fit a `Double`.
        case numberOutOfRange
        /// A backslash escape that RFC 8259 does not define.
        case invalidEscape
        /// A `\u` escape naming half of a surrogate pair without its other half.
        case loneSurrogate
        /// A raw control character (U+0000 to U+001F) inside a string.
        case controlCharacterInString
        /// Bytes that are not valid UTF-8.
        case invalidUTF8
        /// An object that names the same key twice.
        case duplicateKey(String)
        /// Arrays and objects nested deeper than the parser's limit.
        case tooDeep(limit: Int)
        /// Something other than whitespace after the value.
        case trailingData
    }

    /// What went wrong.
    public var kind: Kind
    /// The offset in bytes from the start of the input where the fault was found.
    public var offset: Int

    /// Creates an error.
    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// A one-line explanation, such as `unexpected byte ']' at offset 9, expected a value`.
    public var description: String {
        if case .unexpectedByte(_, let expected) = kind {
            return "\(headline) at offset \(offset), expected \(expected)"
        }
        return "\(headline) at offset \(offset)"
    }

    private var headline: String {
        switch kind {
        case .emptyInput: "no JSON value"
        case .unexpectedEndOfInput: "unexpected end of input"
        case .unexpectedByte(let byte, _): "unexpected \(JSONParseError.describe(byte))"
        case .invalidNumber(let why): "invalid number (\(why))"
        case .numberOutOfRange: "number out of range"
        case .invalidEscape: "invalid escape sequence"
        case .loneSurrogate: "unpaired UTF-16 surrogate in \\u escape"
        case .controlCharacterInString: "unescaped control character in string"
        case .invalidUTF8: "invalid UTF-8"
        case .duplicateKey(let key): "duplicate key '\(key)'"
        case .tooDeep(let limit): "nesting deeper than \(limit)"
        case .trailingData: "unexpected data after the value"
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F {
            return "byte '\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
    }
}
