public import TesseraJSON

extension SignInConfig {
    /// Reads `{allowPasswordSignup?, phoneNumber?}`. A non-boolean flag, a `phoneNumber` that is not an object, or
    /// an unknown key is `INVALID_ARGUMENT` naming its path below `path`.
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        try ConfigJSON.requireKnownKeys(
            of: json, ["allowPasswordSignup", "phoneNumber"], at: path, reason: .invalidArgument
        )
        self.init()
        if let value = ConfigJSON.member("allowPasswordSignup", of: json) {
            allowPasswordSignup = try ConfigJSON.bool(value, at: path.appending("allowPasswordSignup"))
        }
        if let value = ConfigJSON.member("phoneNumber", of: json) {
            let phonePath = path.appending("phoneNumber")
            let object = try ConfigJSON.object(value, at: phonePath, reason: .invalidArgument)
            phoneNumber = try PhoneSignInConfig(json: object, at: phonePath)
        }
    }

    /// The normalized form: `{allowPasswordSignup, phoneNumber: {enabled, testPhoneNumbers}}`.
    public var json: JSONObject {
        ["allowPasswordSignup": .bool(allowPasswordSignup), "phoneNumber": .object(phoneNumber.json)]
    }
}
