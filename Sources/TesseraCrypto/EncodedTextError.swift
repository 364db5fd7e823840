/// Why a base64, base64url or base32 text was refused. Decoders never guess: a text that is not exactly a
/// canonical encoding (apart from optional padding) is refused with one of these.
public enum EncodedTextError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A character outside the alphabet (whitespace included) at this UTF-8 offset.
    case invalidCharacter(offset: Int)
    /// A length (without padding) that no byte string encodes to.
    case invalidLength(Int)
    /// `=` padding in the wrong amount or in the middle of the text.
    case invalidPadding
    /// The last character carries bits beyond the encoded bytes that are not zero, so the text is not the
    /// canonical encoding of any byte string.
    case nonZeroTrailingBits

    /// One line saying what is wrong.
    public var description: String {
        switch self {
        case .invalidCharacter(let offset): "invalid character at offset \(offset)"
        case .invalidLength(let length): "invalid length \(length)"
        case .invalidPadding: "invalid padding"
        case .nonZeroTrailingBits: "non-zero trailing bits"
        }
    }
}
