extension JSONParserState {
    /// Parses a string starting at its opening quote. Strings without escapes are copied once, straight from the
    /// input; strings with escapes are assembled in the scratch buffer.
    mutating func parseString() throws(JSONParseError) -> String {
        offset += 1
        let start = offset
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == ASCII.quote {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                offset += 1
                return text
            } else if byte == ASCII.backslash {
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: bytes[start..<offset])
                return try parseEscapedString()
            } else if byte < 0x20 {
                throw JSONParseError(.controlCharacterInString, at: offset)
            } else if byte < 0x80 {
                offset += 1
            } else {
                offset += try validUTF8SequenceLength()
            }
        }
        throw JSONParseError(.unexpectedEndOfInput, at: offset)
    }

    /// Continues a string after its first backslash, appending the decoded bytes to `scratch`.
    private mutating func parseEscapedString() throws(JSONParseError) -> String {
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == ASCII.quote {
                offset += 1
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == ASCII.backslash {
                try parseEscape()
            } else if byte < 0x20 {
                throw JSONParseError(.controlCharacterInString, at: offset)
            } else if byte < 0x80 {
                scratch.append(byte)
                offset += 1
            } else {
                let length = try validUTF8SequenceLength()
                scratch.append(contentsOf: bytes[offset..<offset + length])
                offset += length
            }
        }
        throw JSONParseError(.unexpectedEndOfInput, at: offset)
    }

    /// Decodes one escape sequence starting at its backslash.
    private mutating func parseEscape() throws(JSONParseError) {
        let escapeStart = offset
        guard offset + 1 < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, at: bytes.count) }
        let decoded: UInt8
        switch bytes[offset + 1] {
        case ASCII.quote: decoded = ASCII.quote
        case ASCII.backslash: decoded = ASCII.backslash
        case ASCII.slash: decoded = ASCII.slash
        case ASCII.lowercaseB: decoded = 0x08
        case ASCII.lowercaseF: decoded = 0x0C
        case ASCII.lowercaseN: decoded = ASCII.lineFeed
        case ASCII.lowercaseR: decoded = ASCII.carriageReturn
        case ASCII.lowercaseT: decoded = ASCII.tab
        case ASCII.lowercaseU:
            offset += 2
            try appendUnicodeEscape(escapeStart: escapeStart)
            return
        default:
            throw JSONParseError(.invalidEscape, at: escapeStart)
        }
        scratch.append(decoded)
        offset += 2
    }

    /// Decodes the four hex digits after `\u` (and a following low surrogate escape when the first is a high one).
    private mutating func appendUnicodeEscape(escapeStart: Int) throws(JSONParseError) {
        let unit = try parseHexQuad()
        let scalarValue: UInt32
        switch unit {
        case 0xD800...0xDBFF:
            guard offset + 1 < bytes.count, bytes[offset] == ASCII.backslash, bytes[offset + 1] == ASCII.lowercaseU
            else {
                throw JSONParseError(.loneSurrogate, at: escapeStart)
            }
            offset += 2
            let low = try parseHexQuad()
            guard (0xDC00...0xDFFF).contains(low) else { throw JSONParseError(.loneSurrogate, at: escapeStart) }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        case 0xDC00...0xDFFF:
            throw JSONParseError(.loneSurrogate, at: escapeStart)
        default:
            scalarValue = UInt32(unit)
        }
        appendUTF8(scalarValue)
    }

    /// Appends the UTF-8 form of a Unicode scalar value (never a surrogate, at most U+10FFFF).
    private mutating func appendUTF8(_ value: UInt32) {
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(value))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | value >> 6))
            scratch.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | value >> 12))
            scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | value >> 18))
            scratch.append(UInt8(0x80 | value >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        }
    }

    private mutating func parseHexQuad() throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard offset < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, at: offset) }
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case ASCII.zero...ASCII.nine: digit = byte - ASCII.zero
            case ASCII.lowercaseA...ASCII.lowercaseF: digit = byte - ASCII.lowercaseA + 10
            case ASCII.uppercaseA...ASCII.uppercaseF: digit = byte - ASCII.uppercaseA + 10
            default: throw JSONParseError(.invalidEscape, at: offset)
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }

    /// The length of the well-formed UTF-8 sequence at `offset` (whose lead byte is not ASCII), per RFC 3629:
    /// no overlong forms, no encoded surrogates, nothing above U+10FFFF.
    private func validUTF8SequenceLength() throws(JSONParseError) -> Int {
        let lead = bytes[offset]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: throw JSONParseError(.invalidUTF8, at: offset)
        }
        guard offset + length <= bytes.count else { throw JSONParseError(.invalidUTF8, at: offset) }
        guard secondRange.contains(bytes[offset + 1]) else { throw JSONParseError(.invalidUTF8, at: offset + 1) }
        for position in (offset + 2)..<(offset + length) where bytes[position] & 0xC0 != 0x80 {
            throw JSONParseError(.invalidUTF8, at: position)
        }
        return length
    }
}
