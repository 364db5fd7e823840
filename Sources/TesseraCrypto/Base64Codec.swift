/// The base64 algorithm of RFC 4648 §4 and §5, parameterized by its alphabet; strict on decoding.
struct Base64Codec: Sendable {
    /// The 64 output characters, index = 6-bit value.
    private let encodeTable: [UInt8]
    /// For every byte, its 6-bit value, or 0xFF when the byte is not in the alphabet.
    private let decodeTable: [UInt8]

    /// RFC 4648 §4: `A–Z a–z 0–9 + /`.
    static let standard = Base64Codec(alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    /// RFC 4648 §5: `A–Z a–z 0–9 - _`.
    static let url = Base64Codec(alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    private init(alphabet: String) {
        encodeTable = Array(alphabet.utf8)
        var decode = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in encodeTable.enumerated() { decode[Int(character)] = UInt8(value) }
        decodeTable = decode
    }

    /// The encoding of `bytes`, with `=` padding to a multiple of four characters when `padded`.
    func encode(_ bytes: [UInt8], padded: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(encodeTable[Int(group >> 18 & 0x3F)])
            output.append(encodeTable[Int(group >> 12 & 0x3F)])
            output.append(encodeTable[Int(group >> 6 & 0x3F)])
            output.append(encodeTable[Int(group & 0x3F)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining > 0 {
            let second = remaining == 2 ? UInt32(bytes[index + 1]) : 0
            let group = UInt32(bytes[index]) << 16 | second << 8
            output.append(encodeTable[Int(group >> 18 & 0x3F)])
            output.append(encodeTable[Int(group >> 12 & 0x3F)])
            if remaining == 2 { output.append(encodeTable[Int(group >> 6 & 0x3F)]) }
            if padded { output.append(contentsOf: Array(repeating: UInt8(ascii: "="), count: 3 - remaining)) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes. Padding is optional, but when present it must be complete; characters outside
    /// the alphabet, impossible lengths and non-zero trailing bits are refused.
    func decode(_ text: some StringProtocol) throws(EncodedTextError) -> [UInt8] {
        try decode(utf8: Array(text.utf8))
    }

    /// The bytes the UTF-8 text `characters` encodes, with the rules of ``decode(_:)``. Problems are reported in
    /// the order: characters, length, padding, trailing bits.
    func decode(utf8 characters: [UInt8]) throws(EncodedTextError) -> [UInt8] {
        let length = Self.lengthWithoutPadding(characters)
        for offset in 0..<length where decodeTable[Int(characters[offset])] == 0xFF {
            throw .invalidCharacter(offset: offset)
        }
        guard length % 4 != 1 else { throw .invalidLength(length) }
        let padding = [0: 0, 2: 2, 3: 1]
        try Self.checkPadding(count: characters.count, unpaddedLength: length, groupSize: 4, expected: padding)
        return try Self.unpack(characters.prefix(length), bitsPerCharacter: 6, table: decodeTable)
    }

    /// Joins the `bitsPerCharacter`-bit values of already validated `characters` (looked up in `table`) into
    /// bytes, refusing leftover bits that are not zero (a canonical encoding leaves none).
    static func unpack(
        _ characters: ArraySlice<UInt8>, bitsPerCharacter: Int, table: [UInt8]
    ) throws(EncodedTextError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(characters.count * bitsPerCharacter / 8)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in characters {
            accumulator = accumulator << UInt32(bitsPerCharacter) | UInt32(table[Int(character)])
            bits += bitsPerCharacter
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else { throw .nonZeroTrailingBits }
        return output
    }

    /// The length of `characters` without its trailing `=` padding.
    static func lengthWithoutPadding(_ characters: [UInt8]) -> Int {
        var length = characters.count
        while length > 0, characters[length - 1] == UInt8(ascii: "=") { length -= 1 }
        return length
    }

    /// Checks that padding, when present, is exactly what completes the last group: `expected` maps the length
    /// of the last partial group to its number of `=`.
    static func checkPadding(
        count: Int,
        unpaddedLength: Int,
        groupSize: Int,
        expected: [Int: Int]
    ) throws(EncodedTextError) {
        guard count > unpaddedLength else { return }
        guard expected[unpaddedLength % groupSize] == count - unpaddedLength else { throw .invalidPadding }
    }
}
