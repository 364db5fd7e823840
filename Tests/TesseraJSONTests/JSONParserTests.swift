import TesseraJSON
import Testing

/// Valid documents (JSONTestSuite's `y_` cases) and the values they parse to.
private let acceptedDocuments: [(text: String, value: JSONValue)] = [
    ("{}", [:]),
    ("[]", []),
    (" \t\r\n[1, 2 ,3] \n", [1, 2, 3]),
    ("\"a\"", "a"),
    ("0", 0),
    ("-0", 0),
    ("-1", -1),
    ("5", .integer(5)),
    ("5.5", .double(5.5)),
    ("5.0", .double(5.0)),
    ("1e2", .double(100)),
    ("1E+2", .double(100)),
    ("1e-2", .double(0.01)),
    ("0.5", .double(0.5)),
    ("-0.0", .double(-0.0)),
    ("9223372036854775807", .integer(Int64.max)),
    ("-9223372036854775808", .integer(Int64.min)),
    ("9223372036854775808", .double(9_223_372_036_854_775_808)),
    ("123456789012345678901234567890", .double(1.2345678901234568e29)),
    ("1e-400", .double(0)),
    ("true", true),
    ("false", false),
    ("null", nil),
    (#""\u00e9""#, "é"),
    (#""\u00E9x""#, "éx"),
    (#""\ud83d\ude00""#, "😀"),
    (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
    (#""\u0000""#, "\u{0}"),
    ("\"é😀ü\"", "é😀ü"),
    ("\"\u{7F}\"", "\u{7F}"),
    (#"{"a":{"b":[1,{"c":null}]},"d":"e"}"#, ["a": ["b": [1, ["c": nil]]], "d": "e"]),
    (#"{"":1}"#, ["": 1]),
    ("[[[]]]", [[[]]]),
]

/// Invalid documents (JSONTestSuite's `n_` cases) and the error each must produce.
private let rejectedDocuments: [(text: [UInt8], error: JSONParseError)] = [
    (bytes(""), JSONParseError(.emptyInput, at: 0)),
    (bytes("  \n"), JSONParseError(.emptyInput, at: 3)),
    (bytes("[1,]"), JSONParseError(.unexpectedByte(UInt8(ascii: "]"), expected: "a value"), at: 3)),
    (bytes(#"{"a":1,}"#), JSONParseError(.unexpectedByte(UInt8(ascii: "}"), expected: "a string key"), at: 7)),
    (bytes("[1 2]"), JSONParseError(.unexpectedByte(UInt8(ascii: "2"), expected: "',' or ']'"), at: 3)),
    (bytes(#"{"a" 1}"#), JSONParseError(.unexpectedByte(UInt8(ascii: "1"), expected: "':'"), at: 5)),
    (bytes(#"{"a":1 "b":2}"#), JSONParseError(.unexpectedByte(UInt8(ascii: "\""), expected: "',' or '}'"), at: 7)),
    (bytes("{'a':1}"), JSONParseError(.unexpectedByte(UInt8(ascii: "'"), expected: "a string key"), at: 1)),
    (bytes("{1:1}"), JSONParseError(.unexpectedByte(UInt8(ascii: "1"), expected: "a string key"), at: 1)),
    (bytes("[1"), JSONParseError(.unexpectedEndOfInput, at: 2)),
    (bytes("{\"a\":"), JSONParseError(.unexpectedEndOfInput, at: 5)),
    (bytes("01"), JSONParseError(.invalidNumber("leading zero"), at: 0)),
    (bytes("-01"), JSONParseError(.invalidNumber("leading zero"), at: 0)),
    (bytes("[00]"), JSONParseError(.invalidNumber("leading zero"), at: 1)),
    (bytes("1."), JSONParseError(.invalidNumber("a digit must follow '.'"), at: 0)),
    (bytes("1.e5"), JSONParseError(.invalidNumber("a digit must follow '.'"), at: 0)),
    (bytes(".5"), JSONParseError(.unexpectedByte(UInt8(ascii: "."), expected: "a value"), at: 0)),
    (bytes("+1"), JSONParseError(.unexpectedByte(UInt8(ascii: "+"), expected: "a value"), at: 0)),
    (bytes("1e"), JSONParseError(.invalidNumber("a digit must follow the exponent marker"), at: 0)),
    (bytes("1e+"), JSONParseError(.invalidNumber("a digit must follow the exponent marker"), at: 0)),
    (bytes("-"), JSONParseError(.unexpectedEndOfInput, at: 1)),
    (bytes("-a"), JSONParseError(.invalidNumber("a digit must follow '-'"), at: 0)),
    (bytes("-Infinity"), JSONParseError(.invalidNumber("a digit must follow '-'"), at: 0)),
    (bytes("NaN"), JSONParseError(.unexpectedByte(UInt8(ascii: "N"), expected: "a value"), at: 0)),
    (bytes("Infinity"), JSONParseError(.unexpectedByte(UInt8(ascii: "I"), expected: "a value"), at: 0)),
    (bytes("1e400"), JSONParseError(.numberOutOfRange, at: 0)),
    (bytes("[-1e999]"), JSONParseError(.numberOutOfRange, at: 1)),
    (bytes("0x10"), JSONParseError(.trailingData, at: 1)),
    (bytes("tru"), JSONParseError(.unexpectedEndOfInput, at: 3)),
    (bytes("trux"), JSONParseError(.unexpectedByte(UInt8(ascii: "x"), expected: "'true'"), at: 0)),
    (bytes("True"), JSONParseError(.unexpectedByte(UInt8(ascii: "T"), expected: "a value"), at: 0)),
    (bytes("nul"), JSONParseError(.unexpectedEndOfInput, at: 3)),
    (bytes("\"abc"), JSONParseError(.unexpectedEndOfInput, at: 4)),
    (bytes(#""\x""#), JSONParseError(.invalidEscape, at: 1)),
    (bytes(#""\'""#), JSONParseError(.invalidEscape, at: 1)),
    (bytes(#""\u12""#), JSONParseError(.invalidEscape, at: 5)),
    (bytes(#""\u12G4""#), JSONParseError(.invalidEscape, at: 5)),
    (bytes(#""\uD800""#), JSONParseError(.loneSurrogate, at: 1)),
    (bytes(#""\uDC00""#), JSONParseError(.loneSurrogate, at: 1)),
    (bytes(#""\uD800\u0041""#), JSONParseError(.loneSurrogate, at: 1)),
    (bytes(#""\uD800x""#), JSONParseError(.loneSurrogate, at: 1)),
    (bytes(#""\uD800\uD800""#), JSONParseError(.loneSurrogate, at: 1)),
    (bytes("\"a\nb\""), JSONParseError(.controlCharacterInString, at: 2)),
    (bytes("\"a\tb\""), JSONParseError(.controlCharacterInString, at: 2)),
    (bytes("\"\\n\u{1}\""), JSONParseError(.controlCharacterInString, at: 3)),
    ([0x22, 0xFF, 0x22], JSONParseError(.invalidUTF8, at: 1)),
    ([0x22, 0xC0, 0x80, 0x22], JSONParseError(.invalidUTF8, at: 1)),
    ([0x22, 0xE0, 0x80, 0xAF, 0x22], JSONParseError(.invalidUTF8, at: 2)),
    ([0x22, 0xED, 0xA0, 0x80, 0x22], JSONParseError(.invalidUTF8, at: 2)),
    ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], JSONParseError(.invalidUTF8, at: 2)),
    ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], JSONParseError(.invalidUTF8, at: 1)),
    ([0x22, 0xE2, 0x82, 0x22], JSONParseError(.invalidUTF8, at: 3)),
    ([0x22, 0xE2, 0x82], JSONParseError(.invalidUTF8, at: 1)),
    ([0x22, 0x80, 0x22], JSONParseError(.invalidUTF8, at: 1)),
    ([0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22], JSONParseError(.invalidUTF8, at: 4)),
    ([0xEF, 0xBB, 0xBF, 0x7B, 0x7D], JSONParseError(.unexpectedByte(0xEF, expected: "a value"), at: 0)),
    ([0x5B, 0xC3, 0xA9, 0x5D], JSONParseError(.unexpectedByte(0xC3, expected: "a value"), at: 1)),
    (bytes(#"{"a":1,"a":2}"#), JSONParseError(.duplicateKey("a"), at: 7)),
    (bytes(#"{"a":{"b":1,"c":2,"b":3}}"#), JSONParseError(.duplicateKey("b"), at: 18)),
    (bytes(#"{"\u0061":1,"a":2}"#), JSONParseError(.duplicateKey("a"), at: 12)),
    (bytes("[1] x"), JSONParseError(.trailingData, at: 4)),
    (bytes("{} {}"), JSONParseError(.trailingData, at: 3)),
    (bytes("[1]]"), JSONParseError(.trailingData, at: 3)),
    (bytes("[1] /* comment */"), JSONParseError(.trailingData, at: 4)),
    (bytes("\u{0C}[]"), JSONParseError(.unexpectedByte(0x0C, expected: "a value"), at: 0)),
    (bytes("[\u{A0}1]"), JSONParseError(.unexpectedByte(0xC2, expected: "a value"), at: 1)),
]

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Test(arguments: acceptedDocuments.indices)
func parserAcceptsValidDocument(_ index: Int) throws {
    let (text, expected) = acceptedDocuments[index]
    let value = try JSONParser().parse(bytes(text))
    #expect(value == expected, "\(text)")
}

@Test(arguments: rejectedDocuments.indices)
func parserRejectsInvalidDocument(_ index: Int) {
    let (text, expected) = rejectedDocuments[index]
    #expect(throws: expected, "\(String(decoding: text, as: UTF8.self))") {
        try JSONParser().parse(text)
    }
}

@Test func parserKeepsIntegerAndDoubleApart() throws {
    #expect(try JSONValue(parsing: "5") != JSONValue(parsing: "5.0"))
    #expect(try JSONValue(parsing: "5.0") == .double(5))
    #expect(try JSONValue(parsing: "1e2").int64Value == nil)
    #expect(try JSONValue(parsing: "1e2").doubleValue == 100)
}

@Test func parserKeepsMemberOrder() throws {
    let value = try JSONValue(parsing: #"{"z":1,"a":2,"m":3}"#)
    #expect(value.objectValue?.keys == ["z", "a", "m"])
}

@Test func parserEnforcesDepthLimit() throws {
    let allowed = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
    #expect(try JSONParser().parse(bytes(allowed)).arrayValue?.count == 1)
    let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
    #expect(throws: JSONParseError(.tooDeep(limit: 64), at: 64)) { try JSONParser().parse(bytes(tooDeep)) }
    let objects = String(repeating: #"{"a":"#, count: 3) + "1" + String(repeating: "}", count: 3)
    #expect(throws: JSONParseError(.tooDeep(limit: 2), at: 10)) { try JSONParser(maxDepth: 2).parse(bytes(objects)) }
    let hostile = String(repeating: "[", count: 100_000)
    #expect(throws: JSONParseError(.tooDeep(limit: 64), at: 64)) { try JSONParser().parse(bytes(hostile)) }
}

@Test func parserFindsDuplicatesInLargeObjects() throws {
    let members = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    let value = try JSONValue(parsing: "{\(members)}")
    #expect(value["k39"] == 39)
    #expect(value.objectValue?.count == 40)
    #expect(throws: JSONParseError(.duplicateKey("k3"), at: 341)) {
        try JSONValue(parsing: "{\(members),\"k3\":0}")
    }
}

@Test func parserReadsRawBuffers() throws {
    let text = bytes(#"{"a":[true,null]}"#)
    let value = try text.withUnsafeBytes { buffer in try JSONParser().parse(buffer) }
    #expect(value == ["a": [true, nil]])
}

@Test func parseErrorsExplainThemselves() {
    #expect(
        JSONParseError(.unexpectedByte(UInt8(ascii: "]"), expected: "a value"), at: 9).description
            == "unexpected byte ']' at offset 9, expected a value"
    )
    #expect(JSONParseError(.duplicateKey("a"), at: 7).description == "duplicate key 'a' at offset 7")
    #expect(JSONParseError(.invalidUTF8, at: 1).description == "invalid UTF-8 at offset 1")
    #expect(JSONParseError(.unexpectedByte(0x0C, expected: "a value"), at: 0).description.contains("0x0C"))
}
