import FoundationEssentials
import TesseraCrypto

/// Bytes written field by field, for what the server seals into a token it hands out (``SealedAuthorizationCode``,
/// ``SessionCookie``): a string is its length (one byte) and UTF-8; an identifier of the server's form
/// (22 base64url characters of 16 bytes) is the marker 0xFF and the 16 bytes; an optional is a presence byte and
/// the value; a time is milliseconds since 1970, 8 bytes big-endian.
struct ByteWriter {
    var output: [UInt8] = []

    mutating func byte(_ value: UInt8) { output.append(value) }

    mutating func bytes(_ value: [UInt8]) { output += value }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { bytes in
            let kept = UnsafeBufferPointer(rebasing: bytes.prefix(254))
            output.append(UInt8(kept.count))
            output.append(contentsOf: kept)
        }
    }

    mutating func identifier(_ value: String) {
        // Strict decoding (the alphabet, no padding, no stray bits) makes the 16 bytes encode back to `value`.
        if value.utf8.count == 22, let raw = try? Base64URL.decode(value), raw.count == 16 {
            output.append(0xFF)
            output += raw
        } else {
            string(value)
        }
    }

    mutating func optional(_ value: String?) {
        guard let value else { return output.append(0) }
        output.append(1)
        string(value)
    }

    mutating func optionalIdentifier(_ value: String?) {
        guard let value else { return output.append(0) }
        output.append(1)
        identifier(value)
    }

    mutating func milliseconds(_ date: Date) {
        let value = UInt64(bitPattern: Int64((date.timeIntervalSince1970 * 1000).rounded()))
        for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}

/// Reads what ``ByteWriter`` wrote; every read is nil past the end or on a malformed field.
struct ByteReader {
    let input: [UInt8]
    var position = 0

    init(_ input: [UInt8]) {
        self.input = input
    }

    var isAtEnd: Bool { position == input.count }

    mutating func byte() -> UInt8? {
        guard position < input.count else { return nil }
        defer { position += 1 }
        return input[position]
    }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        slice(count).map(Array.init)
    }

    /// The next `count` bytes in place, without copying them out.
    private mutating func slice(_ count: Int) -> ArraySlice<UInt8>? {
        guard input.count - position >= count else { return nil }
        defer { position += count }
        return input[position..<position + count]
    }

    mutating func string() -> String? {
        guard let count = byte(), count != 0xFF, let bytes = slice(Int(count)) else { return nil }
        // ASCII, which nearly every stored string is, is UTF-8 as it is: the generic validation (about 330
        // instructions of run-time type look-ups a call) is for the rest.
        return bytes.withUnsafeBufferPointer { text in
            text.allSatisfy { $0 < 0x80 }
                ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
        }
    }

    mutating func identifier() -> String? {
        guard position < input.count else { return nil }
        guard input[position] == 0xFF else { return string() }
        position += 1
        return slice(16).map(Base64URL.encode)
    }

    /// A present value, `.some(nil)` for an absent one, nil when malformed.
    mutating func optional() -> String?? {
        switch byte() {
        case 0: .some(nil)
        case 1: string().map { .some($0) }
        default: nil
        }
    }

    mutating func optionalIdentifier() -> String?? {
        switch byte() {
        case 0: .some(nil)
        case 1: identifier().map { .some($0) }
        default: nil
        }
    }

    mutating func milliseconds() -> Date? {
        guard let bytes = slice(8) else { return nil }
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Date(timeIntervalSince1970: Double(Int64(bitPattern: value)) / 1000)
    }
}
