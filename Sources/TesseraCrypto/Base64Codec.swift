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

    /// The encoding of `bytes`, with `=` padding to a multiple of four characters when `padded`. Written straight
    /// into the string's storage: tokens, codes and identifiers are encoded several times per token request.
    func encode(_ bytes: [UInt8], padded: Bool) -> String {
        bytes.withUnsafeBufferPointer { encode($0, padded: padded) }
    }

    /// ``encode(_:padded:)-([UInt8],_)`` of bytes read in place.
    func encode(_ input: UnsafeBufferPointer<UInt8>, padded: Bool) -> String {
        let length = Self.encodedLength(of: input.count, padded: padded)
        guard length > 0 else { return "" }
        return String(unsafeUninitializedCapacity: length) { output in write(input, padded: padded, into: output) }
    }

    /// Appends the encoding of `bytes` to `output`, as ``encode(_:padded:)`` makes it.
    func append(encodingOf bytes: [UInt8], padded: Bool, to output: inout [UInt8]) {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: Self.encodedLength(of: bytes.count, padded: padded)))
        bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                _ = write(input, padded: padded, into: UnsafeMutableBufferPointer(rebasing: output[start...]))
            }
        }
    }

    /// How many characters encode `count` bytes.
    static func encodedLength(of count: Int, padded: Bool) -> Int {
        let remaining = count % 3
        return count / 3 * 4 + (remaining == 0 ? 0 : (padded ? 4 : remaining + 1))
    }

    /// Writes the encoding of `input` at the start of `output`, which has room for it; returns its length.
    private func write(
        _ input: UnsafeBufferPointer<UInt8>, padded: Bool, into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        let remaining = input.count % 3
        let length = Self.encodedLength(of: input.count, padded: padded)
        return encodeTable.withUnsafeBufferPointer { table in
            var written = 0
            var index = 0
            while index + 3 <= input.count {
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output[written] = table[Int(group >> 18 & 0x3F)]
                output[written + 1] = table[Int(group >> 12 & 0x3F)]
                output[written + 2] = table[Int(group >> 6 & 0x3F)]
                output[written + 3] = table[Int(group & 0x3F)]
                written += 4
                index += 3
            }
            if remaining > 0 {
                let second = remaining == 2 ? UInt32(input[index + 1]) : 0
                let group = UInt32(input[index]) << 16 | second << 8
                output[written] = table[Int(group >> 18 & 0x3F)]
                output[written + 1] = table[Int(group >> 12 & 0x3F)]
                written += 2
                if remaining == 2 {
                    output[written] = table[Int(group >> 6 & 0x3F)]
                    written += 1
                }
                while written < length {
                    output[written] = UInt8(ascii: "=")
                    written += 1
                }
            }
            return written
        }
    }

    /// The bytes `text` encodes. Padding is optional, but when present it must be complete; characters outside
    /// the alphabet, impossible lengths and non-zero trailing bits are refused.
    func decode(_ text: some StringProtocol) throws(EncodedTextError) -> [UInt8] {
        try decode(utf8: Array(text.utf8))
    }

    /// How many `=` complete a last group of 0, 2 or 3 characters.
    private static let padding = [0: 0, 2: 2, 3: 1]

    /// The bytes the UTF-8 text `characters` encodes, with the rules of ``decode(_:)``. Problems are reported in
    /// the order: characters, length, padding, trailing bits. Four characters at a time into three bytes: sealed
    /// codes, tokens and identifiers are decoded on every token request.
    func decode(utf8 characters: [UInt8]) throws(EncodedTextError) -> [UInt8] {
        try characters.withUnsafeBufferPointer { input throws(EncodedTextError) in try decode(utf8: input) }
    }

    /// ``decode(utf8:)-([UInt8])`` of characters read in place. One pass decodes and notes, in the union of the
    /// characters' values, whether any is outside the alphabet (0xFF in the table, every value of the alphabet being
    /// below 64); only then is the first such character looked for, to name it.
    func decode(utf8 input: UnsafeBufferPointer<UInt8>) throws(EncodedTextError) -> [UInt8] {
        let length = Self.lengthWithoutPadding(input)
        let rest = length % 4
        return try decodeTable.withUnsafeBufferPointer { table throws(EncodedTextError) in
            func value(_ offset: Int) -> UInt32 { UInt32(table[Int(input[offset])]) }
            var union: UInt32 = 0
            var strayBits: UInt32 = 0
            var output = [UInt8](zeroes: length / 4 * 3 + max(rest - 1, 0))
            output.withUnsafeMutableBufferPointer { output in
                var count = 0
                var offset = 0
                while offset + 4 <= length {
                    let first = value(offset)
                    let second = value(offset + 1)
                    let third = value(offset + 2)
                    let fourth = value(offset + 3)
                    union |= first | second | third | fourth
                    let group = first << 18 | second << 12 | third << 6 | fourth
                    output[count] = UInt8(truncatingIfNeeded: group >> 16)
                    output[count + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    output[count + 2] = UInt8(truncatingIfNeeded: group)
                    count += 3
                    offset += 4
                }
                for index in offset..<length { union |= value(index) }
                guard rest > 1 else { return }
                // Two characters carry one byte and 4 bits more, three carry two bytes and 2 bits more; a
                // canonical encoding leaves those bits zero.
                var group = value(offset) << 18 | value(offset + 1) << 12
                if rest == 3 { group |= value(offset + 2) << 6 }
                output[count] = UInt8(truncatingIfNeeded: group >> 16)
                count += 1
                if rest == 3 {
                    output[count] = UInt8(truncatingIfNeeded: group >> 8)
                    count += 1
                }
                strayBits = group & (rest == 2 ? 0xFFFF : 0xFF)
            }
            if union > 0x3F, let offset = (0..<length).first(where: { table[Int(input[$0])] == 0xFF }) {
                throw .invalidCharacter(offset: offset)
            }
            guard rest != 1 else { throw .invalidLength(length) }
            try Self.checkPadding(count: input.count, unpaddedLength: length, groupSize: 4, expected: Self.padding)
            guard strayBits == 0 else { throw .nonZeroTrailingBits }
            return output
        }
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
    static func lengthWithoutPadding<Characters: RandomAccessCollection<UInt8>>(_ characters: Characters) -> Int
    where Characters.Index == Int {
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
