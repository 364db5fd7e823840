import TesseraJSON
import Testing

private enum Kind: String, Codable {
    case phone, totp
}

private struct Enrollment: Codable, Equatable {
    var mfaEnrollmentId: String
    var displayName: String?
    var kind: Kind
    var enrolledAt: Int64
}

private struct TokenResult: Codable, Equatable {
    var localId: String
    var idToken: String?
    var expiresIn: Int
    var ratio: Double
    var mfaInfo: [Enrollment]
    var extra: JSONValue
    var claims: [String: Int]
}

private struct ExplicitNull: Encodable {
    var value: String?

    enum CodingKeys: String, CodingKey { case value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
    }
}

private struct Nothing: Codable {}

private struct Nested: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONStringKey.self)
        var inner = container.nestedContainer(keyedBy: JSONStringKey.self, forKey: JSONStringKey("inner"))
        var list = container.nestedUnkeyedContainer(forKey: JSONStringKey("list"))
        try inner.encode(1, forKey: JSONStringKey("a"))
        try list.encode("x")
        try container.encode(true, forKey: JSONStringKey("last"))
        try inner.encode(2, forKey: JSONStringKey("b"))
        var pair = list.nestedUnkeyedContainer()
        try pair.encode(3)
    }
}

private struct Numbers: Encodable {
    var double: Double = 1
    var float: Float = 0.1
    var unsigned: UInt64 = 7
}

@Test func encoderKeepsDeclarationOrderAndOmitsNil() throws {
    let result = TokenResult(
        localId: "u1", idToken: nil, expiresIn: 3600, ratio: 2,
        mfaInfo: [Enrollment(mfaEnrollmentId: "e1", displayName: "Phone", kind: .phone, enrolledAt: 5)],
        extra: ["k": [1, nil]], claims: ["c": 1]
    )
    let value = try JSONValueEncoder().encode(result)
    #expect(
        String(decoding: value.serialized(), as: UTF8.self)
            == #"{"localId":"u1","expiresIn":3600,"ratio":2.0,"#
            + #""mfaInfo":[{"mfaEnrollmentId":"e1","displayName":"Phone","#
            + #""kind":"phone","enrolledAt":5}],"extra":{"k":[1,null]},"claims":{"c":1}}"#
    )
    #expect(try JSONValueDecoder().decode(TokenResult.self, from: value) == result)
}

@Test func encoderWritesExplicitNullsAndEmptyObjects() throws {
    #expect(try JSONValueEncoder().encode(ExplicitNull(value: nil)) == ["value": nil])
    #expect(try JSONValueEncoder().encode(Nothing()) == [:])
    #expect(try JSONValueEncoder().encode(String?.none) == nil)
    #expect(try JSONValueEncoder().encode([1, 2]) == [1, 2])
    #expect(try JSONValueEncoder().encode("x") == "x")
    #expect(try JSONValueEncoder().encode(JSONValue.array([true])) == [true])
}

@Test func encoderFillsNestedContainersLate() throws {
    let value = try JSONValueEncoder().encode(Nested())
    let text = String(decoding: value.serialized(), as: UTF8.self)
    #expect(text == #"{"inner":{"a":1,"b":2},"list":["x",[3]],"last":true}"#)
}

@Test func encoderMapsNumbers() throws {
    #expect(try JSONValueEncoder().encode(Numbers()) == ["double": 1.0, "float": 0.1, "unsigned": 7])
    #expect(try JSONValueEncoder().encode(Numbers())["double"] == .double(1))
}

@Test func encoderRejectsWhatJSONCannotHold() {
    #expect(throws: JSONEncodingError(.nonFiniteNumber, at: JSONPath([.key("double")]))) {
        try JSONValueEncoder().encode(Numbers(double: .nan))
    }
    #expect(throws: JSONEncodingError(.nonFiniteNumber, at: JSONPath([.key("float")]))) {
        try JSONValueEncoder().encode(Numbers(float: -.infinity))
    }
    #expect(throws: JSONEncodingError(.outOfRange, at: JSONPath([.key("unsigned")]))) {
        try JSONValueEncoder().encode(Numbers(unsigned: .max))
    }
    #expect(throws: JSONEncodingError(.nonFiniteNumber, at: JSONPath([.index(1)]))) {
        try JSONValueEncoder().encode([1, Double.infinity])
    }
    #expect(JSONEncodingError(.outOfRange, at: JSONPath([.key("a")])).description == "field 'a' is out of range")
}

@Test func largeEncodedObjectsKeepEveryKeyOnce() throws {
    var map: [String: Int] = [:]
    for number in 0..<50 {
        map["k\(number)"] = number
    }
    let value = try JSONValueEncoder().encode(map)
    #expect(value.objectValue?.count == 50)
    #expect(value["k42"] == 42)
}
