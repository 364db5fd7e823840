public import TesseraJSON

/// What an update may change in one kind of configuration resource (``project`` or ``tenant``): its tree of
/// settable fields, the output-only fields a body may carry but a mask may not name, and how the result of an update
/// is validated and normalized.
public struct ConfigPaths: Sendable {
    /// The settable top-level fields and, below them, their settable sub-fields.
    public let fields: [ConfigField]
    /// Top-level fields that are output only: naming one in a mask is `INVALID_ARGUMENT`.
    public let outputOnlyFields: [String]
    /// Validates a candidate (the body, or the stored object with the masked fields merged in) and returns its
    /// normalized form; the stored object is given for what the candidate alone cannot tell (the tenant's id).
    let normalize: @Sendable (_ candidate: JSONObject, _ stored: JSONObject) throws(AuthError) -> JSONObject

    /// The paths of a resource with `fields`, `outputOnlyFields`, and `normalize` to validate an update's result
    /// (modules outside the core, such as OAuth clients, describe their resources this way).
    public init(
        fields: [ConfigField], outputOnlyFields: [String],
        normalize: @escaping @Sendable (_ candidate: JSONObject, _ stored: JSONObject) throws(AuthError) -> JSONObject
    ) {
        self.fields = fields
        self.outputOnlyFields = outputOnlyFields
        self.normalize = normalize
    }

    /// The `ProjectConfig`: validated by ``ProjectConfig/init(json:at:)``.
    public static let project = ConfigPaths(
        fields: [
            ConfigField("displayName"),
            ConfigField.multiFactorAuthConfig(named: "mfa"),
            ConfigField(
                "signIn",
                children: [
                    ConfigField("allowPasswordSignup"),
                    ConfigField("phoneNumber", children: [ConfigField("enabled"), ConfigField("testPhoneNumbers")]),
                ]
            ),
            ConfigField.smsRegionConfig,
            ConfigField("smsDailyQuota"),
        ],
        outputOnlyFields: [],
        normalize: { candidate, _ throws(AuthError) in try ProjectConfig(json: candidate).json }
    )

    /// A `Tenant`: validated by ``Tenant/init(json:tenantId:at:)`` for the tenant named by the stored object's
    /// `tenantId`, so the stored object must be a tenant's normalized ``Tenant/json``.
    public static let tenant = ConfigPaths(
        fields: [
            ConfigField("displayName"),
            ConfigField("allowPasswordSignup"),
            ConfigField("enablePhoneSignIn"),
            ConfigField("disableAuth"),
            ConfigField.multiFactorAuthConfig(named: "mfaConfig"),
            ConfigField("testPhoneNumbers"),
            ConfigField.smsRegionConfig,
            ConfigField("smsDailyQuota"),
        ],
        outputOnlyFields: Tenant.outputOnlyKeys,
        normalize: { candidate, stored throws(AuthError) in
            guard let tenantId = stored["tenantId"]?.stringValue else {
                throw AuthError(.invalidArgument, "the stored tenant has no tenantId")
            }
            return try Tenant(json: candidate, tenantId: tenantId).json
        }
    )

    /// Every path a mask may name, in tree order: each settable field and each of its prefixes
    /// (`mfa`, `mfa.state`, …).
    public var settablePaths: [String] {
        ConfigPaths.paths(of: fields, under: "")
    }

    private static func paths(of fields: [ConfigField], under prefix: String) -> [String] {
        fields.flatMap { field in
            let path = prefix.isEmpty ? field.name : "\(prefix).\(field.name)"
            return [path] + paths(of: field.children, under: path)
        }
    }
}
