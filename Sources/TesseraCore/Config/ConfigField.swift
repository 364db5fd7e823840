public import TesseraJSON

/// One settable field of a configuration resource, with the fields below it that an `updateMask` may name.
///
/// Arrays and maps are leaves: a mask names them whole, never an element or a key.
public struct ConfigField: Sendable, Hashable {
    /// The JSON key.
    public let name: String
    /// The settable fields inside this one, when it is an object.
    public let children: [ConfigField]
    /// Non-nil when the children are alternatives (a protobuf `oneof`, such as `smsRegionConfig`'s `allowByDefault`
    /// and `allowlistOnly`): the value this object takes when an update clears its last alternative.
    public let alternativesDefault: JSONObject?

    /// Creates a field.
    public init(_ name: String, children: [ConfigField] = [], alternativesDefault: JSONObject? = nil) {
        self.name = name
        self.children = children
        self.alternativesDefault = alternativesDefault
    }

    /// The fields of a ``MultiFactorAuthConfig`` under a key (`mfa` in the project, `mfaConfig` in a tenant).
    static func multiFactorAuthConfig(named name: String) -> ConfigField {
        ConfigField(
            name, children: [ConfigField("state"), ConfigField("enabledProviders"), ConfigField("providerConfigs")]
        )
    }

    /// The fields of an ``SMSRegionConfig``; its two forms are alternatives, and clearing the last one leaves the
    /// default form (every region allowed).
    static let smsRegionConfig = ConfigField(
        "smsRegionConfig",
        children: [
            ConfigField("allowByDefault", children: [ConfigField("disallowedRegions")]),
            ConfigField("allowlistOnly", children: [ConfigField("allowedRegions")]),
        ],
        alternativesDefault: SMSRegionConfig.allowAll.json
    )
}
