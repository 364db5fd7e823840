public import TesseraJSON

extension MultiFactorAuthConfig {
    /// Reads `{state?, enabledProviders?, providerConfigs?}` strictly.
    ///
    /// `state` is one of `DISABLED`, `ENABLED`, `MANDATORY` (`DISABLED` when missing); `enabledProviders` an array
    /// of known provider names without repeats; `providerConfigs` an array of at most one ``ProviderConfig`` object.
    /// Anything wrong anywhere inside is `INVALID_CONFIG` with a detail naming the dotted path below `path`, e.g.
    /// `mfaConfig.providerConfigs[0].totpProviderConfig.adjacentIntervals must be an integer from 0 to 10`.
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        try ConfigJSON.requireKnownKeys(
            of: json, ["state", "enabledProviders", "providerConfigs"], at: path, reason: .invalidConfig
        )
        var state = MFAState.disabled
        if let value = ConfigJSON.member("state", of: json) {
            state = try ConfigJSON.enumeration(value, at: path.appending("state"), reason: .invalidConfig)
        }
        var providers: [MFAProvider] = []
        if let value = ConfigJSON.member("enabledProviders", of: json) {
            let listPath = path.appending("enabledProviders")
            for (index, element) in try ConfigJSON.array(value, at: listPath, reason: .invalidConfig).enumerated() {
                let elementPath = listPath.appending(index)
                let provider: MFAProvider = try ConfigJSON.enumeration(
                    element, at: elementPath, reason: .invalidConfig
                )
                guard !providers.contains(provider) else {
                    throw AuthError(.invalidConfig, "\(elementPath) repeats \(provider.rawValue)")
                }
                providers.append(provider)
            }
        }
        var configs: [ProviderConfig] = []
        if let value = ConfigJSON.member("providerConfigs", of: json) {
            let listPath = path.appending("providerConfigs")
            for (index, element) in try ConfigJSON.array(value, at: listPath, reason: .invalidConfig).enumerated() {
                let elementPath = listPath.appending(index)
                let object = try ConfigJSON.object(element, at: elementPath, reason: .invalidConfig)
                let config = try ProviderConfig(json: object, at: elementPath)
                if config.totp != nil, configs.contains(where: { $0.totp != nil }) {
                    throw AuthError(.invalidConfig, "\(elementPath) is a second TOTP provider config; one is allowed")
                }
                if config.recoveryCodes, configs.contains(where: \.recoveryCodes) {
                    throw AuthError(.invalidConfig, "\(elementPath) is a second recovery code provider config")
                }
                if let id = config.factorServiceID, configs.contains(where: { $0.factorServiceID == id }) {
                    throw AuthError(.invalidConfig, "\(elementPath) repeats the factor service \(id)")
                }
                configs.append(config)
            }
        }
        self.init(state: state, enabledProviders: providers, providerConfigs: configs)
    }

    /// The normalized form: every field present, `{state, enabledProviders, providerConfigs}`.
    public var json: JSONObject {
        [
            "state": .string(state.rawValue),
            "enabledProviders": .array(enabledProviders.map { .string($0.rawValue) }),
            "providerConfigs": .array(providerConfigs.map { .object($0.json) }),
        ]
    }
}
