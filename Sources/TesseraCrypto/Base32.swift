/// Base32 (RFC 4648 §6, alphabet `A–Z 2–7`), the encoding of TOTP shared secrets in `otpauth://` URIs.
public enum Base32 {
    private static let encodeTable = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// For every byte, its 5-bit value (lowercase letters too), or 0xFF when it is not in the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in encodeTable.enumerated() {
            table[Int(character)] = UInt8(value)
            if character >= UInt8(ascii: "A"), character <= UInt8(ascii: "Z") {
                table[Int(character + 32)] = UInt8(value)
            }
        }
        return table
    }()

    /// The uppercase encoding of `bytes` without `=` padding, as authenticator apps expect in `otpauth://` URIs.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(encodeTable[Int(accumulator >> UInt32(bits) & 0x1F)])
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { output.append(encodeTable[Int(accumulator << UInt32(5 - bits) & 0x1F)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes, case-insensitively, with or without `=` padding. Refuses characters outside the
    /// alphabet (including `0`, `1`, `8`, `9` and whitespace), impossible lengths, partial padding and non-zero
    /// trailing bits.
    public static func decode(_ text: some StringProtocol) throws(EncodedTextError) -> [UInt8] {
        let characters = Array(text.utf8)
        let length = Base64Codec.lengthWithoutPadding(characters)
        for offset in 0..<length where decodeTable[Int(characters[offset])] == 0xFF {
            throw .invalidCharacter(offset: offset)
        }
        // 8 characters carry 5 bytes; a final partial group can only have 2, 4, 5 or 7 characters.
        let padding = [0: 0, 2: 6, 4: 4, 5: 3, 7: 1]
        guard padding[length % 8] != nil else { throw .invalidLength(length) }
        try Base64Codec.checkPadding(count: characters.count, unpaddedLength: length, groupSize: 8, expected: padding)
        return try Base64Codec.unpack(characters.prefix(length), bitsPerCharacter: 5, table: decodeTable)
    }
}
