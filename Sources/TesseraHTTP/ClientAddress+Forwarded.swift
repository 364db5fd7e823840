extension ClientAddress {
    /// The hops of one `Forwarded` field value (RFC 7239 §4), leftmost first: one per element, the address of its
    /// `for` parameter, or ``Hop/opaque`` when the element is malformed, has no `for`, or names an `unknown` or
    /// obfuscated node. An unterminated quoted string makes the whole value one opaque hop.
    ///
    /// Parameter names are case-insensitive; values are tokens or quoted strings (with `\` escapes); whitespace
    /// around elements and pairs is tolerated, and empty elements and pairs are skipped.
    static func forwardedHops(_ value: ArraySlice<UInt8>) -> [Hop] {
        guard let elements = split(value, at: comma) else { return [.opaque] }
        return elements.map(trimmed).filter { !$0.isEmpty }.map(forwardedHop)
    }

    /// The hop of one `Forwarded` element (`for=192.0.2.1;proto=https;by=…`).
    private static func forwardedHop(_ element: ArraySlice<UInt8>) -> Hop {
        guard let pairs = split(element, at: UInt8(ascii: ";")) else { return .opaque }
        var names: Set<[UInt8]> = []
        var forValue: [UInt8]?
        for pair in pairs.map(trimmed) where !pair.isEmpty {
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")), let value = pairValue(pair[(equals + 1)...])
            else { return .opaque }
            let name = pair[..<equals].map { isLetter($0) ? $0 | 0x20 : $0 }
            guard !name.isEmpty, name.allSatisfy(isTokenCharacter), names.insert(name).inserted else {
                return .opaque
            }
            if name == Array("for".utf8) { forValue = value }
        }
        guard let forValue, let address = node(forValue[...], allowsBareIPv6: false, allowsObfuscatedPort: true)
        else { return .opaque }
        return .address(address)
    }

    /// The value of a pair: a token as it is, or a quoted string without its quotes and escapes; nil when it is
    /// neither.
    private static func pairValue(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.first == UInt8(ascii: "\"") else {
            return !text.isEmpty && text.allSatisfy(isTokenCharacter) ? Array(text) : nil
        }
        guard text.count >= 2, text.last == UInt8(ascii: "\"") else { return nil }
        var value: [UInt8] = []
        var escaped = false
        for byte in text.dropFirst().dropLast() {
            if escaped {
                value.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                return nil
            } else {
                value.append(byte)
            }
        }
        return escaped ? nil : value
    }

    /// The bytes split at every `separator` outside quoted strings; nil when a quoted string is not terminated.
    private static func split(_ text: ArraySlice<UInt8>, at separator: UInt8) -> [ArraySlice<UInt8>]? {
        var pieces: [ArraySlice<UInt8>] = []
        var start = text.startIndex
        var inQuotes = false
        var escaped = false
        for index in text.indices {
            let byte = text[index]
            if escaped {
                escaped = false
            } else if inQuotes && byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if !inQuotes && byte == separator {
                pieces.append(text[start..<index])
                start = index + 1
            }
        }
        guard !inQuotes else { return nil }
        pieces.append(text[start...])
        return pieces
    }

    /// Whether the byte is a `tchar` of RFC 9110 §5.6.2: ASCII letters, digits and ``!#$%&'*+-.^_`|~``.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isDigit(byte) || isLetter(byte) || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}
