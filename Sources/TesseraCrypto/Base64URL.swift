/// Base64url (RFC 4648 §5), the encoding of JWS segments, JWK coordinates and Tessera's random identifiers.
public enum Base64URL {
    /// The encoding of `bytes` without `=` padding (RFC 7515 §2).
    public static func encode(_ bytes: [UInt8]) -> String {
        Base64Codec.url.encode(bytes, padded: false)
    }

    /// ``encode(_:)-([UInt8])`` of bytes read in place (an identifier inside a sealed value), without copying them
    /// into an array first.
    public static func encode(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.withUnsafeBufferPointer { Base64Codec.url.encode($0, padded: false) }
    }

    /// The bytes `text` encodes, with or without `=` padding. Refuses characters outside the base64url alphabet
    /// (including `+`, `/` and whitespace), impossible lengths, partial padding and non-zero trailing bits.
    public static func decode(_ text: some StringProtocol) throws(EncodedTextError) -> [UInt8] {
        try Base64Codec.url.decode(text)
    }

    /// ``decode(_:)-(String)`` of the one spelling ``encode(_:)-([UInt8])`` writes: `=` padding is refused too. For
    /// a value spent or recognised by the digest of its text (a sealed authorization code is single use by its
    /// digest), where a second spelling of the same bytes would be a second value.
    public static func decodeUnpadded(_ text: String) throws(EncodedTextError) -> [UInt8] {
        // Padding ends the text; an `=` anywhere else is already one of decode's refusals.
        guard text.utf8.last != UInt8(ascii: "=") else { throw .invalidPadding }
        return try decode(text)
    }

    /// ``decode(_:)-(StringProtocol)`` of a `String`, without the generic code a caller in another module would run.
    public static func decode(_ text: String) throws(EncodedTextError) -> [UInt8] {
        var text = text
        return try text.withUTF8 { characters in
            Result { () throws(EncodedTextError) in
                try Base64Codec.url.decode(utf8: characters)
            }
        }.get()
    }
}
