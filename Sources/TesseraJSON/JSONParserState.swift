/// The cursor of one parse: the input, the current offset and nesting depth, a scratch buffer for strings with
/// escapes, and stacks on which the members and elements of open containers collect, so each finished container is
/// copied once into storage of its exact size. Lives only for the duration of one call to ``JSONParser``'s `parse`.
struct JSONParserState {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var offset = 0
    var depth = 0
    var scratch: [UInt8] = []
    var memberStack: [(key: String, value: JSONValue)] = []
    var elementStack: [JSONValue] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        memberStack.reserveCapacity(16)
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard offset < bytes.count else { throw JSONParseError(.emptyInput, at: offset) }
        let value = try parseValue()
        skipWhitespace()
        guard offset == bytes.count else { throw JSONParseError(.trailingData, at: offset) }
        return value
    }

    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case ASCII.space, ASCII.tab, ASCII.lineFeed, ASCII.carriageReturn: offset += 1
            default: return
            }
        }
    }

    /// Parses the value starting at `offset` (after whitespace was skipped).
    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard offset < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, at: offset) }
        switch bytes[offset] {
        case ASCII.openBrace: return try parseObject()
        case ASCII.openBracket: return try parseArray()
        case ASCII.quote: return .string(try parseString())
        case ASCII.lowercaseT:
            try expectLiteral("true")
            return .bool(true)
        case ASCII.lowercaseF:
            try expectLiteral("false")
            return .bool(false)
        case ASCII.lowercaseN:
            try expectLiteral("null")
            return .null
        case ASCII.minus, ASCII.zero...ASCII.nine:
            return try parseNumber()
        case let byte:
            throw JSONParseError(.unexpectedByte(byte, expected: "a value"), at: offset)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let start = offset
        let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for expected in text {
            guard offset < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, at: offset) }
            guard bytes[offset] == expected else {
                throw JSONParseError(.unexpectedByte(bytes[offset], expected: "'\(literal)'"), at: start)
            }
            offset += 1
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        guard depth <= maxDepth else { throw JSONParseError(.tooDeep(limit: maxDepth), at: offset) }
        offset += 1
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == ASCII.closeBrace {
            offset += 1
            depth -= 1
            return .object(JSONObject())
        }
        let base = memberStack.count
        var seenKeys: Set<String>?
        while true {
            skipWhitespace()
            guard offset < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, at: offset) }
            guard bytes[offset] == ASCII.quote else {
                throw JSONParseError(.unexpectedByte(bytes[offset], expected: "a string key"), at: offset)
            }
            let keyOffset = offset
            let key = try parseString()
            skipWhitespace()
            try expect(ASCII.colon, "':'")
            skipWhitespace()
            let value = try parseValue()
            guard isNewKey(key, since: base, seenKeys: &seenKeys) else {
                throw JSONParseError(.duplicateKey(key), at: keyOffset)
            }
            memberStack.append((key: key, value: value))
            skipWhitespace()
            guard offset < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, at: offset) }
            switch bytes[offset] {
            case ASCII.comma:
                offset += 1
            case ASCII.closeBrace:
                offset += 1
                depth -= 1
                let members = Array(memberStack[base...])
                memberStack.removeSubrange(base...)
                return .object(JSONObject(uniqueMembers: members))
            case let byte:
                throw JSONParseError(.unexpectedByte(byte, expected: "',' or '}'"), at: offset)
            }
        }
    }

    /// Whether `key` is not yet among the members collected since `base`: a scan for small objects, a set once the
    /// object grows.
    private func isNewKey(_ key: String, since base: Int, seenKeys: inout Set<String>?) -> Bool {
        if seenKeys == nil {
            guard memberStack.count - base > JSONObject.indexThreshold else {
                return !memberStack[base...].contains { $0.key == key }
            }
            seenKeys = Set(memberStack[base...].map(\.key))
        }
        return seenKeys?.insert(key).inserted ?? false
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == ASCII.closeBracket {
            offset += 1
            depth -= 1
            return .array([])
        }
        let base = elementStack.count
        while true {
            skipWhitespace()
            let element = try parseValue()
            elementStack.append(element)
            skipWhitespace()
            guard offset < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, at: offset) }
            switch bytes[offset] {
            case ASCII.comma:
                offset += 1
            case ASCII.closeBracket:
                offset += 1
                depth -= 1
                let elements = Array(elementStack[base...])
                elementStack.removeSubrange(base...)
                return .array(elements)
            case let byte:
                throw JSONParseError(.unexpectedByte(byte, expected: "',' or ']'"), at: offset)
            }
        }
    }

    private mutating func expect(_ byte: UInt8, _ description: String) throws(JSONParseError) {
        guard offset < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, at: offset) }
        guard bytes[offset] == byte else {
            throw JSONParseError(.unexpectedByte(bytes[offset], expected: description), at: offset)
        }
        offset += 1
    }
}

/// The ASCII bytes the parser and writer care about.
enum ASCII {
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let quote = UInt8(ascii: "\"")
    static let plus = UInt8(ascii: "+")
    static let comma = UInt8(ascii: ",")
    static let minus = UInt8(ascii: "-")
    static let period = UInt8(ascii: ".")
    static let slash = UInt8(ascii: "/")
    static let zero = UInt8(ascii: "0")
    static let one = UInt8(ascii: "1")
    static let nine = UInt8(ascii: "9")
    static let colon = UInt8(ascii: ":")
    static let uppercaseA = UInt8(ascii: "A")
    static let uppercaseE = UInt8(ascii: "E")
    static let uppercaseF = UInt8(ascii: "F")
    static let openBracket = UInt8(ascii: "[")
    static let backslash = UInt8(ascii: "\\")
    static let closeBracket = UInt8(ascii: "]")
    static let lowercaseA = UInt8(ascii: "a")
    static let lowercaseB = UInt8(ascii: "b")
    static let lowercaseE = UInt8(ascii: "e")
    static let lowercaseF = UInt8(ascii: "f")
    static let lowercaseN = UInt8(ascii: "n")
    static let lowercaseR = UInt8(ascii: "r")
    static let lowercaseT = UInt8(ascii: "t")
    static let lowercaseU = UInt8(ascii: "u")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
}
