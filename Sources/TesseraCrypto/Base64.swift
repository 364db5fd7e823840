/// Standard base64 (RFC 4648 §4). Unpadded, it is also the "B64" of PHC strings used by ``PasswordHasher``.
public enum Base64 {
    /// The encoding of `bytes`, with `=` padding unless `padded` is false.
    public static func encode(_ bytes: [UInt8], padded: Bool = true) -> String {
        Base64Codec.standard.encode(bytes, padded: padded)
    }

    /// The bytes `text` encodes, with or without `=` padding. Refuses characters outside the standard alphabet
    /// (including `-`, `_` and whitespace), impossible lengths, partial padding and non-zero trailing bits.
    public static func decode(_ text: some StringProtocol) throws(EncodedTextError) -> [UInt8] {
        try Base64Codec.standard.decode(text)
    }

    /// ``decode(_:)`` of UTF-8 characters.
    public static func decode(utf8 characters: ArraySlice<UInt8>) throws(EncodedTextError) -> [UInt8] {
        try characters.withUnsafeBufferPointer { input throws(EncodedTextError) in
            try Base64Codec.standard.decode(utf8: input)
        }
    }
}
