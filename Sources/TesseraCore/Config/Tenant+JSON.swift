public import TesseraJSON

extension Tenant {
    /// The keys a tenant body may carry that are never set from input.
    static let outputOnlyKeys = ["tenantId", "name", "effectiveMfaConfig"]
    /// The keys of the settable fields.
    static let settableKeys = [
        "displayName", "allowPasswordSignup", "enablePhoneSignIn", "disableAuth", "mfaConfig", "testPhoneNumbers",
        "smsRegionConfig", "smsDailyQuota", "defaultLanguage",
    ]

    /// Reads a `Tenant` strictly for the tenant `tenantId` (the one being created or written), filling defaults.
    ///
    /// - `displayName`: required, 1–128 characters without control characters, else `INVALID_ARGUMENT`.
    /// - `allowPasswordSignup`, `enablePhoneSignIn`, `disableAuth`: JSON booleans, else `INVALID_ARGUMENT`.
    /// - `mfaConfig`, `smsRegionConfig`, `smsDailyQuota`: overrides checked as in ``ProjectConfig`` (`INVALID_CONFIG`);
    ///   `testPhoneNumbers` as the project's. Omitted or `null` means "inherit".
    /// - `tenantId`, `name`, `effectiveMfaConfig`: output fields that clients round-trip; they are ignored, except that
    ///   a `tenantId` other than `tenantId` or a `name` other than `tenants/<tenantId>` is `INVALID_ARGUMENT`.
    /// - `defaultLanguage`: one of `en`, `ja`, `ru`, `fr`, else `INVALID_ARGUMENT`; omitted or `null`: English.
    /// - any other key: `INVALID_ARGUMENT` naming it.
    public init(json: JSONObject, tenantId: String, at path: JSONPath = JSONPath()) throws(AuthError) {
        try ConfigJSON.requireKnownKeys(
            of: json, Set(Tenant.outputOnlyKeys + Tenant.settableKeys), at: path, reason: .invalidArgument
        )
        try Tenant.checkIdentity(json, tenantId: tenantId, at: path)
        let namePath = path.appending("displayName")
        guard let nameValue = ConfigJSON.member("displayName", of: json) else {
            throw AuthError(.invalidArgument, "\(namePath) is required")
        }
        self.init(tenantId: tenantId, displayName: try ConfigJSON.displayName(nameValue, at: namePath))
        if let value = ConfigJSON.member("allowPasswordSignup", of: json) {
            allowPasswordSignup = try ConfigJSON.bool(value, at: path.appending("allowPasswordSignup"))
        }
        if let value = ConfigJSON.member("enablePhoneSignIn", of: json) {
            enablePhoneSignIn = try ConfigJSON.bool(value, at: path.appending("enablePhoneSignIn"))
        }
        if let value = ConfigJSON.member("disableAuth", of: json) {
            disableAuth = try ConfigJSON.bool(value, at: path.appending("disableAuth"))
        }
        if let value = ConfigJSON.member("defaultLanguage", of: json) {
            guard let tag = value.stringValue, let language = Language(rawValue: tag) else {
                let known = Language.allCases.map(\.rawValue).joined(separator: ", ")
                throw AuthError(.invalidArgument, "\(path.appending("defaultLanguage")) must be one of \(known)")
            }
            defaultLanguage = language
        }
        try readOverrides(json, at: path)
    }

    /// The normalized form: `tenantId` and `name`, then every settable field, overrides only when present.
    public var json: JSONObject {
        var object: JSONObject = [
            "tenantId": .string(tenantId),
            "name": .string(name),
            "displayName": .string(displayName),
            "allowPasswordSignup": .bool(allowPasswordSignup),
            "enablePhoneSignIn": .bool(enablePhoneSignIn),
            "disableAuth": .bool(disableAuth),
        ]
        if let mfaConfig { object["mfaConfig"] = .object(mfaConfig.json) }
        if let testPhoneNumbers { object["testPhoneNumbers"] = .object(TestPhoneNumbers.json(testPhoneNumbers)) }
        if let smsRegionConfig { object["smsRegionConfig"] = .object(smsRegionConfig.json) }
        if let smsDailyQuota { object["smsDailyQuota"] = .integer(Int64(smsDailyQuota)) }
        if let defaultLanguage { object["defaultLanguage"] = .string(defaultLanguage.rawValue) }
        return object
    }

    /// The `tenants.get` form: ``json`` plus `effectiveMfaConfig`, the MFA settings the tenant's users run under.
    public func json(effectiveUnder project: ProjectConfig) -> JSONObject {
        var object = json
        object["effectiveMfaConfig"] = .object((mfaConfig ?? project.mfa).json)
        return object
    }

    /// Refuses output fields that name another tenant than the one being written.
    private static func checkIdentity(_ json: JSONObject, tenantId: String, at path: JSONPath) throws(AuthError) {
        if let value = ConfigJSON.member("tenantId", of: json), value.stringValue != tenantId {
            throw AuthError(.invalidArgument, "\(path.appending("tenantId")) does not name the tenant being written")
        }
        if let value = ConfigJSON.member("name", of: json), value.stringValue != "tenants/\(tenantId)" {
            throw AuthError(.invalidArgument, "\(path.appending("name")) does not name the tenant being written")
        }
    }

    /// Reads the optional overrides.
    private mutating func readOverrides(_ json: JSONObject, at path: JSONPath) throws(AuthError) {
        if let value = ConfigJSON.member("mfaConfig", of: json) {
            let mfaPath = path.appending("mfaConfig")
            let object = try ConfigJSON.object(value, at: mfaPath, reason: .invalidConfig)
            mfaConfig = try MultiFactorAuthConfig(json: object, at: mfaPath)
        }
        if let value = ConfigJSON.member("testPhoneNumbers", of: json) {
            testPhoneNumbers = try TestPhoneNumbers.read(value, at: path.appending("testPhoneNumbers"))
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
}
