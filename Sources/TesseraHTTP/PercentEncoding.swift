/// Percent-decoding and -encoding of URL components and form data (RFC 3986 §2.1, WHATWG URL
/// `application/x-www-form-urlencoded`).
public enum PercentEncoding {
    /// Decodes `%XX` escapes; with `plusAsSpace` (query strings and forms only) a `+` becomes a space.
    /// Throws on a `%` without two hex digits after it, when the result is not UTF-8, or when it holds a NUL
    /// (which no parameter needs, and which would cut a value short on its way to the database).
    public static func decode(
        _ text: some StringProtocol, plusAsSpace: Bool = false
    ) throws(PercentEncodingError) -> String {
        try decode(bytes: Array(text.utf8)[...], plusAsSpace: plusAsSpace)
    }

    /// ``decode(_:plusAsSpace:)`` of UTF-8 bytes; bytes that are not UTF-8 throw
    /// ``PercentEncodingError/invalidUTF8``.
    public static func decode(bytes utf8: ArraySlice<UInt8>, plusAsSpace: Bool) throws(PercentEncodingError) -> String {
        try utf8.withUnsafeBufferPointer { input throws(PercentEncodingError) in
            try decode(input, plusAsSpace: plusAsSpace)
        }
    }

    /// ``decode(bytes:plusAsSpace:)`` of bytes read in place. One pass looks for escapes, NULs and bytes above ASCII,
    /// eight bytes a step (``BytesFound``); only text with escapes is copied before it becomes a string.
    static func decode(_ input: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool) throws(PercentEncodingError) -> String {
        // Without `plusAsSpace` only escapes need work: the `+` looked for is then a second `%`.
        let found = BytesFound(in: input, plus: plusAsSpace ? UInt8(ascii: "+") : UInt8(ascii: "%"))
        guard found.needsWork else { return try text(of: input, holdsNUL: found.nul, isASCII: found.ascii) }
        // The decoded bytes are never more than the input's: they go to scratch memory (on the stack when small),
        // and only the string is made on the heap.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(input.count, 1)) {
            decoded throws(PercentEncodingError) in
            var count = 0
            var index = 0
            var nul = false
            var ascii = true
            while index < input.count {
                let byte = input[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < input.count, let high = hexValue(input[index + 1]),
                        let low = hexValue(input[index + 2])
                    else { throw .invalidEscape(offset: index) }
                    decoded[count] = high << 4 | low
                    index += 3
                } else {
                    decoded[count] = plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte
                    index += 1
                }
                if decoded[count] == 0 { nul = true }
                if decoded[count] >= 0x80 { ascii = false }
                count += 1
            }
            return try text(of: UnsafeBufferPointer(rebasing: decoded[..<count]), holdsNUL: nul, isASCII: ascii)
        }
    }

    /// What the first pass of ``decode(_:plusAsSpace:)`` looks for in text to decode: escapes (`%`, or `plus`), NULs,
    /// bytes above ASCII. Eight bytes at a time, each word's bytes tested together: a byte of a word is zero exactly
    /// when `(word - 0x01…01) & ~word & 0x80…80` is not (a borrow only reaches past a zero byte), which finds `%` and
    /// `plus` as zero bytes of the word exclusive-or'ed with them; bytes above ASCII are its top bits. A form's code
    /// and redirect URI are hundreds of bytes: byte by byte the pass took about 6 instructions a byte under callgrind.
    struct BytesFound {
        /// Whether the text holds `%` or `plus`.
        private(set) var needsWork = false
        /// Whether it holds a zero byte.
        private(set) var nul = false
        /// Whether every byte is ASCII.
        private(set) var ascii = true

        init(in input: UnsafeBufferPointer<UInt8>, plus: UInt8) {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highBits: UInt64 = 0x8080_8080_8080_8080
            func zeroByte(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highBits }
            let percentWord = ones &* UInt64(UInt8(ascii: "%"))
            let plusWord = ones &* UInt64(plus)
            var escapes: UInt64 = 0
            var zeroes: UInt64 = 0
            var high: UInt64 = 0
            var index = 0
            if let base = input.baseAddress {
                while index + 8 <= input.count {
                    let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                    escapes |= zeroByte(word ^ percentWord) | zeroByte(word ^ plusWord)
                    zeroes |= zeroByte(word)
                    high |= word
                    index += 8
                }
            }
            needsWork = escapes != 0
            nul = zeroes != 0
            ascii = high & highBits == 0
            for byte in input[index...] {
                if byte == UInt8(ascii: "%") || byte == plus { needsWork = true }
                if byte == 0 { nul = true }
                if byte >= 0x80 { ascii = false }
            }
        }
    }

    /// The decoded bytes as a string: throws when they hold a NUL or are not UTF-8.
    private static func text(
        of bytes: UnsafeBufferPointer<UInt8>, holdsNUL: Bool, isASCII: Bool
    ) throws(PercentEncodingError) -> String {
        if holdsNUL { throw .nulCharacter }
        // ASCII, what nearly every form and query holds, is UTF-8 as it is: the (generic, much slower)
        // validation is for the rest.
        if isASCII { return String(decoding: bytes, as: UTF8.self) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }

    /// Encodes every byte except the RFC 3986 unreserved ones (`A–Z a–z 0–9 - . _ ~`) as `%XX`, so the result is
    /// safe as a query or form name or value, and as a path segment.
    public static func encode(_ text: some StringProtocol) -> String {
        guard !text.utf8.allSatisfy(isUnreserved) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3)
        append(encodingOf: text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``encode(_:)`` of `text` to `bytes`: runs of unreserved bytes at once, the others escaped.
    static func append(encodingOf text: some StringProtocol, to bytes: inout [UInt8]) {
        let appended: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            var runStart = 0
            for (position, byte) in utf8.enumerated() where !isUnreserved(byte) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                appendEscape(of: byte, to: &bytes)
                runStart = position + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        guard appended == nil else { return }
        for byte in text.utf8 {
            if isUnreserved(byte) { bytes.append(byte) } else { appendEscape(of: byte, to: &bytes) }
        }
    }

    private static func appendEscape(of byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "%"))
        bytes.append(hexDigits[Int(byte >> 4)])
        bytes.append(hexDigits[Int(byte & 0x0F)])
    }

    static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Whether `byte` is an RFC 3986 unreserved character: `A-Z a-z 0-9 - . _ ~`.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
