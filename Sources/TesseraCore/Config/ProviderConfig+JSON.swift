public import TesseraJSON

extension ProviderConfig {
    /// How a factor service id is written: 1 to 32 of `a-z`, `0-9` and `-`, as `docs/factor-protocol.md` fixes it.
    public static func isFactorServiceID(_ id: String) -> Bool {
        (1...32).contains(id.utf8.count)
            && id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// Reads `{state, totpProviderConfig}`, `{state, recoveryCodeProviderConfig: {}}` or
    /// `{state, factorServiceProviderConfig: {factorId}}`: `state` and
    /// exactly one provider member are required and no other key is allowed. Anything wrong is `INVALID_CONFIG`
    /// naming its path below `path`. A factor service id need not be registered yet: an entry for an unregistered
    /// service enables nothing until it is.
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        try ConfigJSON.requireKnownKeys(
            of: json, ["state", "totpProviderConfig", "factorServiceProviderConfig", "recoveryCodeProviderConfig"],
            at: path, reason: .invalidConfig)
        let statePath = path.appending("state")
        guard let stateValue = ConfigJSON.member("state", of: json) else {
            throw AuthError(.invalidConfig, "\(statePath) is required")
        }
        let state: ProviderState = try ConfigJSON.enumeration(stateValue, at: statePath, reason: .invalidConfig)
        if let recovery = ConfigJSON.member("recoveryCodeProviderConfig", of: json) {
            let recoveryPath = path.appending("recoveryCodeProviderConfig")
            guard json.keys.count == 2 else {
                throw AuthError(.invalidConfig, "\(path) may have only one provider member")
            }
            let object = try ConfigJSON.object(recovery, at: recoveryPath, reason: .invalidConfig)
            try ConfigJSON.requireKnownKeys(of: object, [], at: recoveryPath, reason: .invalidConfig)
            self = .recoveryCodes(state: state)
            return
        }
        let totpPath = path.appending("totpProviderConfig")
        let servicePath = path.appending("factorServiceProviderConfig")
        switch (
            ConfigJSON.member("totpProviderConfig", of: json),
            ConfigJSON.member("factorServiceProviderConfig", of: json)
        ) {
        case (let totpValue?, nil):
            let totpObject = try ConfigJSON.object(totpValue, at: totpPath, reason: .invalidConfig)
            self.init(state: state, totp: try TOTPProviderConfig(json: totpObject, at: totpPath))
        case (nil, let serviceValue?):
            let service = try ConfigJSON.object(serviceValue, at: servicePath, reason: .invalidConfig)
            try ConfigJSON.requireKnownKeys(of: service, ["factorId"], at: servicePath, reason: .invalidConfig)
            let idPath = servicePath.appending("factorId")
            guard let id = ConfigJSON.member("factorId", of: service)?.stringValue, Self.isFactorServiceID(id) else {
                throw AuthError(.invalidConfig, "\(idPath) must be 1 to 32 of a-z, 0-9 and -")
            }
            self.init(state: state, factorServiceID: id)
        case (nil, nil):
            throw AuthError(.invalidConfig, "\(totpPath) or \(servicePath) is required")
        case (.some, .some):
            throw AuthError(
                .invalidConfig, "\(path) may have only one of totpProviderConfig and factorServiceProviderConfig")
        }
    }

    /// The normalized form: `{state, totpProviderConfig: {adjacentIntervals}}` or
    /// `{state, factorServiceProviderConfig: {factorId}}`.
    public var json: JSONObject {
        if recoveryCodes { return ["state": .string(state.rawValue), "recoveryCodeProviderConfig": [:]] }
        if let factorServiceID {
            return [
                "state": .string(state.rawValue), "factorServiceProviderConfig": ["factorId": .string(factorServiceID)],
            ]
        }
        return ["state": .string(state.rawValue), "totpProviderConfig": .object((totp ?? TOTPProviderConfig()).json)]
    }
}
