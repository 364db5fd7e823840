extension JSONParserState {
    /// Parses a number per RFC 8259 §6. Integers that fit `Int64` become ``JSONValue/integer(_:)``; numbers with a
    /// fraction or exponent, and integers too large for `Int64`, become ``JSONValue/double(_:)``.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = offset
        let negative = bytes[offset] == ASCII.minus
        if negative { offset += 1 }
        guard offset < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, at: offset) }
        var magnitude: UInt64 = 0
        var overflow = false
        switch bytes[offset] {
        case ASCII.zero:
            offset += 1
            if offset < bytes.count, isDigit(bytes[offset]) {
                throw JSONParseError(.invalidNumber("leading zero"), at: start)
            }
        case ASCII.one...ASCII.nine:
            while offset < bytes.count, isDigit(bytes[offset]) {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[offset] - ASCII.zero))
                overflow = overflow || overflow1 || overflow2
                magnitude = sum
                offset += 1
            }
        default:
            throw JSONParseError(.invalidNumber("a digit must follow '-'"), at: start)
        }
        var isInteger = true
        if offset < bytes.count, bytes[offset] == ASCII.period {
            offset += 1
            guard skipDigits() else { throw JSONParseError(.invalidNumber("a digit must follow '.'"), at: start) }
            isInteger = false
        }
        if offset < bytes.count, bytes[offset] == ASCII.lowercaseE || bytes[offset] == ASCII.uppercaseE {
            offset += 1
            if offset < bytes.count, bytes[offset] == ASCII.plus || bytes[offset] == ASCII.minus {
                offset += 1
            }
            guard skipDigits() else {
                throw JSONParseError(.invalidNumber("a digit must follow the exponent marker"), at: start)
            }
            isInteger = false
        }
        if isInteger, !overflow {
            if !negative, magnitude <= UInt64(Int64.max) {
                return .integer(Int64(magnitude))
            }
            if negative, magnitude <= UInt64(Int64.max) + 1 {
                return .integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw JSONParseError(.numberOutOfRange, at: start) }
        return .double(value)
    }

    /// Skips a run of digits and says whether there was at least one.
    private mutating func skipDigits() -> Bool {
        let start = offset
        while offset < bytes.count, isDigit(bytes[offset]) {
            offset += 1
        }
        return offset > start
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= ASCII.zero && byte <= ASCII.nine
    }
}
