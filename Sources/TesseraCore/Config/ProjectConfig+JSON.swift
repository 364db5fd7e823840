public import TesseraJSON

extension ProjectConfig {
    /// Reads a `ProjectConfig` strictly and fills the defaults of omitted fields.
    ///
    /// - `displayName`: 1–128 characters without control characters, else `INVALID_ARGUMENT`.
    /// - `mfa`: see ``MultiFactorAuthConfig/init(json:at:)`` (`INVALID_CONFIG`, details start with `mfa.`).
    /// - `signIn`: see ``SignInConfig/init(json:at:)``.
    /// - `smsRegionConfig`: see ``SMSRegionConfig/init(json:at:)`` (`INVALID_CONFIG`).
    /// - `smsDailyQuota`: a JSON integer from 0 to 1 000 000 000, else `INVALID_CONFIG`.
    /// - any other key: `INVALID_ARGUMENT` naming it. A `null` member counts as omitted.
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        try ConfigJSON.requireKnownKeys(
            of: json, ["displayName", "mfa", "signIn", "smsRegionConfig", "smsDailyQuota"], at: path,
            reason: .invalidArgument
        )
        self.init()
        if let value = ConfigJSON.member("displayName", of: json) {
            displayName = try ConfigJSON.displayName(value, at: path.appending("displayName"))
        }
        if let value = ConfigJSON.member("mfa", of: json) {
            let mfaPath = path.appending("mfa")
            let object = try ConfigJSON.object(value, at: mfaPath, reason: .invalidConfig)
            mfa = try MultiFactorAuthConfig(json: object, at: mfaPath)
        }
        if let value = ConfigJSON.member("signIn", of: json) {
            let signInPath = path.appending("signIn")
            let object = try ConfigJSON.object(value, at: signInPath, reason: .invalidArgument)
            signIn = try SignInConfig(json: object, at: signInPath)
        }
        if let value = ConfigJSON.member("smsRegionConfig", of: json) {
            let regionPath = path.appending("smsRegionConfig")
            let object = try ConfigJSON.object(value, at: regionPath, reason: .invalidConfig)
            smsRegionConfig = try SMSRegionConfig(json: object, at: regionPath)
        }
        if let value = ConfigJSON.member("smsDailyQuota", of: json) {
            smsDailyQuota = try ConfigJSON.integer(
                value, in: ProjectConfig.allowedSMSDailyQuota, at: path.appending("smsDailyQuota"),
                reason: .invalidConfig
            )
        }
    }

    /// The normalized form, every field present: `{displayName, mfa, signIn, smsRegionConfig, smsDailyQuota}`.
    public var json: JSONObject {
        [
            "displayName": .string(displayName),
            "mfa": .object(mfa.json),
            "signIn": .object(signIn.json),
            "smsRegionConfig": .object(smsRegionConfig.json),
            "smsDailyQuota": .integer(Int64(smsDailyQuota)),
        ]
    }
}
