import TesseraJSON
import Testing

private struct AppVerification: Codable, Equatable {
    var recaptchaToken: String
}

private struct PhoneEnrollmentInfo: Codable, Equatable {
    var phoneNumber: String
    var appVerification: AppVerification?
}

private struct Label: Codable, Equatable {
    var color: String
}

private enum State: String, Codable, CaseIterable, JSONSchemaDescribing {
    case disabled = "DISABLED"
    case enabled = "ENABLED"
}

private struct StartParams: Codable, Equatable {
    var idToken: String
    var tenantId: String?
    var phoneEnrollmentInfo: PhoneEnrollmentInfo?
    var pageSize: Int?
    var tags: [String]?
    var labels: [String: Label]?
    var items: [Label]?
    var state: State?
}

private struct Numbers: Decodable {
    var small: Int8?
    var unsigned: UInt?
    var ratio: Double?
    var single: Float?
    var flag: Bool?
    var big: Int64?
}

private struct Loose: Decodable {
    var name: String
    var extra: JSONValue
    var object: JSONObject?
}

/// Asks for `legacy` only through `contains`.
private struct ContainsOnly: Decodable {
    var hasLegacy: Bool

    enum CodingKeys: String, CodingKey { case legacy }

    init(from decoder: any Decoder) throws {
        hasLegacy = try decoder.container(keyedBy: CodingKeys.self).contains(.legacy)
    }
}

private struct Validated: Decodable {
    struct TooShort: Error, CustomStringConvertible {
        var description: String { "must have at least 3 characters" }
    }

    var name: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        guard name.count >= 3 else { throw TooShort() }
    }

    enum CodingKeys: String, CodingKey { case name }
}

private struct Holder<Inner: Decodable>: Decodable {
    var inner: Inner
}

private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws(JSONDecodingError) -> T {
    let value: JSONValue
    do {
        value = try JSONValue(parsing: text)
    } catch {
        preconditionFailure("test input is not JSON: \(error)")
    }
    return try JSONValueDecoder().decode(T.self, from: value)
}

private func message<T: Decodable>(_ type: T.Type, _ text: String) -> String? {
    do {
        _ = try decode(T.self, text)
        return nil
    } catch {
        return error.message
    }
}

@Test func decoderDecodesNestedValues() throws {
    let params = try decode(
        StartParams.self,
        #"""
        {"idToken":"t","tenantId":null,"phoneEnrollmentInfo":{"phoneNumber":"+15555550100",
         "appVerification":{"recaptchaToken":"r"}},"pageSize":20,"tags":["a","b"],
         "labels":{"x":{"color":"red"}},"items":[{"color":"blue"}],"state":"ENABLED"}
        """#
    )
    #expect(
        params
            == StartParams(
                idToken: "t", tenantId: nil,
                phoneEnrollmentInfo: PhoneEnrollmentInfo(
                    phoneNumber: "+15555550100", appVerification: AppVerification(recaptchaToken: "r")
                ),
                pageSize: 20, tags: ["a", "b"], labels: ["x": Label(color: "red")], items: [Label(color: "blue")],
                state: .enabled
            )
    )
}

@Test func decoderRejectsUnknownKeysAtEveryLevel() {
    #expect(message(StartParams.self, #"{"idToken":"t","idTokn":"u"}"#) == "unknown field 'idTokn'")
    #expect(
        message(StartParams.self, #"{"idToken":"t","phoneEnrollmentInfo":{"phoneNumber":"+1","phonNumber":"+1"}}"#)
            == "unknown field 'phoneEnrollmentInfo.phonNumber'"
    )
    #expect(
        message(
            StartParams.self,
            #"{"idToken":"t","phoneEnrollmentInfo":{"phoneNumber":"+1","#
                + #""appVerification":{"recaptchaToken":"r","x":1}}}"#
        ) == "unknown field 'phoneEnrollmentInfo.appVerification.x'"
    )
    #expect(
        message(StartParams.self, #"{"idToken":"t","items":[{"color":"a"},{"color":"b","size":2}]}"#)
            == "unknown field 'items[1].size'"
    )
    #expect(
        message(StartParams.self, #"{"idToken":"t","labels":{"any key":{"color":"a","shade":1}}}"#)
            == "unknown field 'labels.any key.shade'"
    )
    #expect(message(StartParams.self, #"{"a":1,"idToken":"t","b":2}"#) == "unknown field 'a'")
}

@Test func unknownKeysErrorIsTyped() {
    #expect(throws: JSONDecodingError(.unknownField, at: JSONPath([.key("phoneEnrollmentInfo"), .key("phonNumber")]))) {
        try decode(StartParams.self, #"{"idToken":"t","phoneEnrollmentInfo":{"phoneNumber":"1","phonNumber":"1"}}"#)
    }
}

@Test func mapsTreatEveryKeyAsUsed() throws {
    let params = try decode(StartParams.self, #"{"idToken":"t","labels":{"a":{"color":"x"},"b":{"color":"y"}}}"#)
    #expect(params.labels?.count == 2)
}

@Test func unknownKeysMayBeAllowed() throws {
    let value = try JSONValue(parsing: #"{"idToken":"t","extra":1,"phoneEnrollmentInfo":{"phoneNumber":"1","x":2}}"#)
    let params = try JSONValueDecoder(rejectsUnknownKeys: false).decode(StartParams.self, from: value)
    #expect(params.idToken == "t")
    #expect(params.phoneEnrollmentInfo?.phoneNumber == "1")
}

@Test func containsCountsAsAskingForAKey() throws {
    #expect(try decode(ContainsOnly.self, #"{"legacy":{"anything":[1]}}"#).hasLegacy)
    #expect(try decode(ContainsOnly.self, "{}").hasLegacy == false)
    #expect(message(ContainsOnly.self, #"{"legacy":1,"other":2}"#) == "unknown field 'other'")
}

@Test func jsonValuePropertiesTakeTheirValueWhole() throws {
    let loose = try decode(Loose.self, #"{"name":"n","extra":{"deep":{"x":[1,{"y":2}]}},"object":{"k":null}}"#)
    #expect(loose.extra == ["deep": ["x": [1, ["y": 2]]]])
    #expect(loose.object == ["k": nil])
    #expect(message(Loose.self, #"{"name":"n","extra":1,"object":[]}"#) == "field 'object' must be an object")
    #expect(try JSONValueDecoder().decode(JSONValue.self, from: [1, "a"]) == [1, "a"])
}

@Test func decoderReportsMissingFields() {
    #expect(message(StartParams.self, "{}") == "missing field 'idToken'")
    #expect(
        message(StartParams.self, #"{"idToken":"t","phoneEnrollmentInfo":{}}"#)
            == "missing field 'phoneEnrollmentInfo.phoneNumber'"
    )
    #expect(message(StartParams.self, #"{"idToken":"t","items":[{}]}"#) == "missing field 'items[0].color'")
    #expect(throws: JSONDecodingError(.missingField, at: JSONPath([.key("idToken")]))) {
        try decode(StartParams.self, "{}")
    }
}

@Test func decoderReportsWrongTypes() {
    #expect(message(StartParams.self, #"{"idToken":5}"#) == "field 'idToken' must be a string")
    #expect(message(StartParams.self, #"{"idToken":null}"#) == "field 'idToken' must be a string")
    #expect(message(StartParams.self, #"{"idToken":"t","pageSize":"5"}"#) == "field 'pageSize' must be an integer")
    #expect(message(StartParams.self, #"{"idToken":"t","tags":"a"}"#) == "field 'tags' must be an array")
    #expect(message(StartParams.self, #"{"idToken":"t","tags":["a",1]}"#) == "field 'tags[1]' must be a string")
    #expect(
        message(StartParams.self, #"{"idToken":"t","phoneEnrollmentInfo":"+1"}"#)
            == "field 'phoneEnrollmentInfo' must be an object"
    )
    #expect(message(StartParams.self, "[]") == "value must be an object")
    #expect(message(Numbers.self, #"{"flag":1}"#) == "field 'flag' must be a boolean")
    #expect(message(Numbers.self, #"{"ratio":"1"}"#) == "field 'ratio' must be a number")
}

@Test func integersAreStrict() throws {
    #expect(message(StartParams.self, #"{"idToken":"t","pageSize":5.5}"#) == "field 'pageSize' must be an integer")
    #expect(message(StartParams.self, #"{"idToken":"t","pageSize":5.0}"#) == "field 'pageSize' must be an integer")
    #expect(message(StartParams.self, #"{"idToken":"t","pageSize":1e2}"#) == "field 'pageSize' must be an integer")
    #expect(try decode(StartParams.self, #"{"idToken":"t","pageSize":5}"#).pageSize == 5)
    #expect(message(Numbers.self, #"{"small":300}"#) == "field 'small' is out of range")
    #expect(message(Numbers.self, #"{"unsigned":-1}"#) == "field 'unsigned' is out of range")
    #expect(message(Numbers.self, #"{"big":9223372036854775808}"#) == "field 'big' must be an integer")
    #expect(try decode(Numbers.self, #"{"small":-128,"big":-9223372036854775808}"#).big == Int64.min)
}

@Test func floatingPointAcceptsBothNumberKinds() throws {
    #expect(try decode(Numbers.self, #"{"ratio":5}"#).ratio == 5)
    #expect(try decode(Numbers.self, #"{"ratio":5.5,"single":0.25}"#).single == 0.25)
    #expect(message(Numbers.self, #"{"single":1e300}"#) == "field 'single' is out of range")
}

@Test func typesMayRejectValuesWithTheirOwnReasons() throws {
    let stateError = try #require(message(StartParams.self, #"{"idToken":"t","state":"ENABLE"}"#))
    #expect(stateError.hasPrefix("field 'state' is invalid: "))
    #expect(
        message(Holder<Validated>.self, #"{"inner":{"name":"ab"}}"#)
            == "field 'inner' is invalid: must have at least 3 characters"
    )
    #expect(try decode(Holder<Validated>.self, #"{"inner":{"name":"abc"}}"#).inner.name == "abc")
}

@Test func topLevelScalarsAndCollectionsDecode() throws {
    #expect(try JSONValueDecoder().decode(String.self, from: "x") == "x")
    #expect(try JSONValueDecoder().decode([Int].self, from: [1, 2]) == [1, 2])
    #expect(try JSONValueDecoder().decode(Int?.self, from: nil) == nil)
    #expect(try JSONValueDecoder().decode([String: Int].self, from: ["a": 1]) == ["a": 1])
    #expect(throws: JSONDecodingError(.typeMismatch(expected: "an integer"), at: JSONPath([.index(1)]))) {
        try JSONValueDecoder().decode([Int].self, from: [1, "2"])
    }
}

@Test func decodingErrorsDescribeThemselves() {
    let path = JSONPath([.key("a"), .index(2), .key("b")])
    let error = JSONDecodingError(.typeMismatch(expected: "an integer"), at: path)
    #expect(error.field == "a[2].b")
    #expect(error.description == "field 'a[2].b' must be an integer")
}

private class BaseRecord: Decodable {
    let id: String

    enum CodingKeys: String, CodingKey { case id }

    required init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .id)
    }
}

private final class NamedRecord: BaseRecord {
    let name: String

    enum NamedKeys: String, CodingKey { case name }

    required init(from decoder: any Decoder) throws {
        name = try decoder.container(keyedBy: NamedKeys.self).decode(String.self, forKey: .name)
        try super.init(from: decoder)
    }
}

/// Decodes its parent's fields through `superDecoder(forKey:)`.
private struct Wrapped: Decodable {
    var label: String
    var base: BaseRecord

    enum CodingKeys: String, CodingKey { case label, base }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        label = try container.decode(String.self, forKey: .label)
        base = try BaseRecord(from: container.superDecoder(forKey: .base))
    }
}

@Test func keysUsedByEveryContainerOfAValueCount() throws {
    let record = try decode(NamedRecord.self, #"{"id":"1","name":"n"}"#)
    #expect(record.id == "1")
    #expect(record.name == "n")
    #expect(message(NamedRecord.self, #"{"id":"1","name":"n","nam":"x"}"#) == "unknown field 'nam'")
}

@Test func superDecodersAreCheckedToo() throws {
    #expect(try decode(Wrapped.self, #"{"label":"l","base":{"id":"7"}}"#).base.id == "7")
    #expect(message(Wrapped.self, #"{"label":"l","base":{"id":"7","x":1}}"#) == "unknown field 'base.x'")
    #expect(message(Wrapped.self, #"{"label":"l"}"#) == "field 'base' must be an object")
}

@Test func nestedContainersAreCheckedToo() throws {
    struct Flattened: Decodable {
        var phone: String

        enum CodingKeys: String, CodingKey { case info }
        enum InfoKeys: String, CodingKey { case phone }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let info = try container.nestedContainer(keyedBy: InfoKeys.self, forKey: .info)
            phone = try info.decode(String.self, forKey: .phone)
        }
    }
    #expect(try decode(Flattened.self, #"{"info":{"phone":"+1"}}"#).phone == "+1")
    #expect(message(Flattened.self, #"{"info":{"phone":"+1","fax":"+2"}}"#) == "unknown field 'info.fax'")
    #expect(message(Flattened.self, #"{"info":[]}"#) == "field 'info' must be an object")
    #expect(message(Flattened.self, "{}") == "missing field 'info'")
}

@Test func objectsDecodeDirectly() throws {
    let object: JSONObject = ["phoneNumber": "+1", "appVerification": ["recaptchaToken": "r"]]
    let info = try JSONValueDecoder().decode(PhoneEnrollmentInfo.self, from: .object(object))
    #expect(info.appVerification?.recaptchaToken == "r")
    #expect(throws: JSONDecodingError(.unknownField, at: JSONPath([.key("x")]))) {
        try JSONValueDecoder().decode(AppVerification.self, from: ["recaptchaToken": "r", "x": 1])
    }
}
