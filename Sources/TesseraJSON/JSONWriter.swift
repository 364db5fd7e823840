/// Writes compact JSON text as UTF-8 bytes.
///
/// Strings escape only what RFC 8259 requires (`"`, `\` and control characters; `/` and non-ASCII text are written
/// as they are). Integers are written without a fraction; doubles in the shortest form that reads back to the same
/// `Double`, always with a fraction or exponent so they read back as doubles (`5.0`, `1e+20`). JSON cannot express
/// a non-finite number, so NaN and infinities are written as `null`, as JavaScript does.
///
/// A writer can also be used to assemble a document piece by piece (``writeRaw(_:)`` plus values), which is how
/// response envelopes are built without intermediate strings.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// Creates a writer with room for `capacity` bytes before it must grow.
    public init(reservingCapacity capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The compact JSON text of a value.
    public static func serialize(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(value)
        return writer.bytes
    }

    /// Appends a value.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let flag): writeRaw(flag ? "true" : "false")
        case .integer(let number): writeInteger(number)
        case .double(let number): writeDouble(number)
        case .string(let text): writeString(text)
        case .array(let elements):
            bytes.append(ASCII.openBracket)
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(ASCII.comma) }
                write(element)
            }
            bytes.append(ASCII.closeBracket)
        case .object(let object):
            bytes.append(ASCII.openBrace)
            for (position, member) in object.members.enumerated() {
                if position > 0 { bytes.append(ASCII.comma) }
                writeString(member.key)
                bytes.append(ASCII.colon)
                write(member.value)
            }
            bytes.append(ASCII.closeBrace)
        }
    }

    /// Appends text exactly as given; the caller promises it is valid JSON at this point of the document.
    public mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends one byte of punctuation; the caller promises it is valid JSON at this point of the document.
    mutating func writeByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends a value another writer wrote (its ``bytes``), so that a value written once can go into many
    /// documents; the caller promises a value is expected at this point of the document.
    public mutating func writeWritten(_ value: [UInt8]) {
        bytes.append(contentsOf: value)
    }

    /// Appends an integer in decimal.
    public mutating func writeInteger(_ number: Int64) {
        if number < 0 { bytes.append(ASCII.minus) }
        var magnitude = number.magnitude
        guard magnitude > 0 else {
            bytes.append(ASCII.zero)
            return
        }
        // The digits come least significant first: written from the end of scratch memory on the stack, then
        // appended at once (reversing them in the output in place made Array copy its whole buffer).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            while magnitude > 0 {
                start -= 1
                digits[start] = ASCII.zero + UInt8(magnitude % 10)
                magnitude /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends a double in its shortest round-trip form, or `null` when it is not finite.
    public mutating func writeDouble(_ number: Double) {
        guard number.isFinite else {
            writeRaw("null")
            return
        }
        bytes.append(contentsOf: number.description.utf8)
    }

    /// Appends a quoted, escaped string.
    public mutating func writeString(_ text: String) {
        bytes.append(ASCII.quote)
        var text = text
        text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return }
            var runStart = 0
            var position = 0
            while position < utf8.count {
                // Eight bytes a step while none needs an escape: most strings written are tokens and URLs.
                while position + 8 <= utf8.count,
                    !JSONWriter.anyNeedsEscape(UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                {
                    position += 8
                }
                guard position < utf8.count else { break }
                let byte = base[position]
                if JSONWriter.needsEscape(byte) {
                    bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: position - runStart))
                    appendEscape(for: byte)
                    runStart = position + 1
                }
                position += 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: utf8.count - runStart))
        }
        bytes.append(ASCII.quote)
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == ASCII.quote || byte == ASCII.backslash
    }

    /// Whether any of the eight bytes of `word` ``needsEscape(_:)``, without looking at them one by one: a byte
    /// below 0x20 leaves its top bit set in `word - 0x20…20` where the byte's own top bit is clear, and a byte equal
    /// to `"` or `\` is a zero byte of `word ^ 0x22…22` or `word ^ 0x5C…5C`, found the same way. A borrow can only
    /// cross into a higher byte from a byte that matched, so the answer is exact.
    static func anyNeedsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasByteBelow(_ word: UInt64, _ limit: UInt64) -> Bool {
            (word &- ones &* limit) & ~word & highBits != 0
        }
        return hasByteBelow(word, 0x20) || hasByteBelow(word ^ (ones &* UInt64(ASCII.quote)), 1)
            || hasByteBelow(word ^ (ones &* UInt64(ASCII.backslash)), 1)
    }

    private mutating func appendEscape(for byte: UInt8) {
        bytes.append(ASCII.backslash)
        switch byte {
        case ASCII.quote: bytes.append(ASCII.quote)
        case ASCII.backslash: bytes.append(ASCII.backslash)
        case ASCII.lineFeed: bytes.append(ASCII.lowercaseN)
        case ASCII.carriageReturn: bytes.append(ASCII.lowercaseR)
        case ASCII.tab: bytes.append(ASCII.lowercaseT)
        case 0x08: bytes.append(ASCII.lowercaseB)
        case 0x0C: bytes.append(ASCII.lowercaseF)
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: [ASCII.lowercaseU, ASCII.zero, ASCII.zero])
            bytes.append(hexDigits.utf8Start[Int(byte >> 4)])
            bytes.append(hexDigits.utf8Start[Int(byte & 0x0F)])
        }
    }
}
