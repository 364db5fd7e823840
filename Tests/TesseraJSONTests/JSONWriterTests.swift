import TesseraJSON
import Testing

private func text(_ value: JSONValue) -> String {
    String(decoding: JSONWriter.serialize(value), as: UTF8.self)
}

@Test func writerEscapesOnlyWhatItMust() {
    #expect(text("a\"b\\c/d\né😀\u{7F}") == #""a\"b\\c/d\né😀\#u{7F}""#)
    #expect(text("\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}") == #""\u0000\u0001\b\t\n\f\r\u001f""#)
    #expect(text("") == #""""#)
}

@Test func writerWritesNumbersSoTheyReadBack() {
    #expect(text(0) == "0")
    #expect(text(-1) == "-1")
    #expect(text(.integer(Int64.max)) == "9223372036854775807")
    #expect(text(.integer(Int64.min)) == "-9223372036854775808")
    #expect(text(5.0) == "5.0")
    #expect(text(0.1) == "0.1")
    #expect(text(1e20) == "1e+20")
    #expect(text(-0.0) == "-0.0")
    #expect(text(1.5e-7) == "1.5e-07")
    #expect(text(.double(.nan)) == "null")
    #expect(text(.double(.infinity)) == "null")
}

@Test func writerIsCompactAndKeepsOrder() {
    let value: JSONValue = ["z": [1, true, nil], "a": ["x": "y"], "m": [], "e": [:]]
    #expect(text(value) == #"{"z":[1,true,null],"a":{"x":"y"},"m":[],"e":{}}"#)
    #expect(value.description == text(value))
}

@Test func writerAssemblesDocumentsPieceByPiece() {
    var writer = JSONWriter(reservingCapacity: 16)
    writer.writeRaw(#"{"id":"#)
    writer.writeInteger(7)
    writer.writeRaw(#","name":"#)
    writer.writeString("a\"b")
    writer.writeRaw(#","ratio":"#)
    writer.writeDouble(0.5)
    writer.writeRaw("}")
    #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"id":7,"name":"a\"b","ratio":0.5}"#)
}

@Test func objectWriterWritesMembersInOrderAndLeavesAbsentOnesOut() {
    var object = JSONObjectWriter(reservingCapacity: 8)
    object.member("none", nil as String?)
    object.member("id", 7 as Int64?)
    object.member("name", "a\"b")
    object.member("ok", false)
    object.member("tags", ["x", "y\"z"])
    object.member("empty", [String]())
    object.member("gone", nil as [String]?)
    #expect(
        String(decoding: object.finish(), as: UTF8.self)
            == #"{"id":7,"name":"a\"b","ok":false,"tags":["x","y\"z"],"empty":[]}"#)
    #expect(JSONObjectWriter().finish() == Array("{}".utf8))
}

@Test(arguments: [
    #"{"a":[1,2.5,-3e-05,"x\ny",true,false,null],"b":{"c":{}},"d":"é😀"}"#,
    #"[9223372036854775807,-9223372036854775808,1e+300,5.0,0]"#,
    #""\u0001""#,
    #"{"name":"\"quoted\" \\ back"}"#,
])
func writerRoundTripsCanonicalText(_ original: String) throws {
    let value = try JSONValue(parsing: original)
    #expect(text(value) == original)
    #expect(try JSONValue(parsing: JSONWriter.serialize(value)) == value)
}

@Test func roundTripPreservesNumberKinds() throws {
    let values: [JSONValue] = [
        5, 5.0, 1e2, -0.0, 0.1, .double(.greatestFiniteMagnitude), .double(.leastNonzeroMagnitude),
        .integer(Int64.min),
    ]
    for value in values {
        let again = try JSONValue(parsing: value.serialized())
        #expect(again == value, "\(value)")
    }
}

/// Every byte value at every position of strings long enough to be scanned eight bytes at a time, and beside the
/// bytes an escape looks like: the word-at-a-time scan escapes exactly what the byte-by-byte rule does.
@Test func writerEscapesEveryByteWhereverItIs() {
    func expected(_ utf8: [UInt8]) -> String {
        var out = "\""
        for scalar in String(decoding: utf8, as: UTF8.self).unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
    for length in [1, 7, 8, 9, 17, 24] {
        for position in 0..<length {
            for byte in UInt8(0)...UInt8(0x7F) {
                for neighbour in [UInt8(ascii: "a"), 0x1F, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F] {
                    var utf8 = [UInt8](repeating: neighbour, count: length)
                    utf8[position] = byte
                    var writer = JSONWriter()
                    writer.writeString(String(decoding: utf8, as: UTF8.self))
                    let written = String(decoding: writer.bytes, as: UTF8.self)
                    guard written == expected(utf8) else {
                        Issue.record("byte \(byte) at \(position) of \(length) beside \(neighbour): \(written)")
                        return
                    }
                }
            }
        }
    }
    // Non-ASCII text is written as it is, whole words of it included.
    var writer = JSONWriter()
    writer.writeString("éééééééé\"😀😀😀😀")
    #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"éééééééé\\\"😀😀😀😀\"")
}
