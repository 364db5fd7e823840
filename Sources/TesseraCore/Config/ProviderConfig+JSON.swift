public import TesseraJSON

extension ProviderConfig {
    /// Reads `{state, totpProviderConfig}`; both are required and no other key is allowed. Anything wrong is
    /// `INVALID_CONFIG` naming its path below `path`.
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        try ConfigJSON.requireKnownKeys(of: json, ["state", "totpProviderConfig"], at: path, reason: .invalidConfig)
        let statePath = path.appending("state")
        guard let stateValue = ConfigJSON.member("state", of: json) else {
            throw AuthError(.invalidConfig, "\(statePath) is required")
        }
        let state: ProviderState = try ConfigJSON.enumeration(stateValue, at: statePath, reason: .invalidConfig)
        let totpPath = path.appending("totpProviderConfig")
        guard let totpValue = ConfigJSON.member("totpProviderConfig", of: json) else {
            throw AuthError(.invalidConfig, "\(totpPath) is required")
        }
        let totpObject = try ConfigJSON.object(totpValue, at: totpPath, reason: .invalidConfig)
        self.init(state: state, totp: try TOTPProviderConfig(json: totpObject, at: totpPath))
    }

    /// The normalized form: `{state, totpProviderConfig: {adjacentIntervals}}`.
    public var json: JSONObject {
        ["state": .string(state.rawValue), "totpProviderConfig": .object(totp.json)]
    }
}
