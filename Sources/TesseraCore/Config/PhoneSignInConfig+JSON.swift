public import TesseraJSON

extension PhoneSignInConfig {
    /// Reads `{enabled?, testPhoneNumbers?}`. A non-boolean `enabled`, a `testPhoneNumbers` that is not an object,
    /// or an unknown key is `INVALID_ARGUMENT`; more than ten test numbers is `MAXIMUM_TEST_PHONE_NUMBER_EXCEEDED`;
    /// a key that is not E.164 (``PhoneNumber/isE164(_:)``) or a code that is not a string of six ASCII digits is
    /// `INVALID_TESTING_PHONE_NUMBER`, naming the entry by position (never the number or the code).
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        try ConfigJSON.requireKnownKeys(of: json, ["enabled", "testPhoneNumbers"], at: path, reason: .invalidArgument)
        self.init()
        if let value = ConfigJSON.member("enabled", of: json) {
            enabled = try ConfigJSON.bool(value, at: path.appending("enabled"))
        }
        if let value = ConfigJSON.member("testPhoneNumbers", of: json) {
            testPhoneNumbers = try TestPhoneNumbers.read(value, at: path.appending("testPhoneNumbers"))
        }
    }

    /// The normalized form: `{enabled, testPhoneNumbers}`.
    public var json: JSONObject {
        ["enabled": .bool(enabled), "testPhoneNumbers": .object(TestPhoneNumbers.json(testPhoneNumbers))]
    }
}
