/// One `providerConfigs` entry of a ``MultiFactorAuthConfig``: the TOTP provider, recovery codes
/// (`recoveryCodeProviderConfig: {}`), or a registered factor service (`factorServiceProviderConfig`); the last two
/// are Tessera's extensions.
public struct ProviderConfig: Sendable, Hashable {
    /// Whether the entry switches its provider on.
    public var state: ProviderState
    /// The TOTP settings (`totpProviderConfig` in JSON); nil in a factor service's entry.
    public var totp: TOTPProviderConfig?
    /// The id of the factor service the entry switches (`factorServiceProviderConfig.factorId`); nil for TOTP.
    public var factorServiceID: String?
    /// Whether the entry switches recovery codes (`recoveryCodeProviderConfig`).
    public var recoveryCodes = false

    /// A TOTP entry.
    public init(state: ProviderState, totp: TOTPProviderConfig = TOTPProviderConfig()) {
        self.state = state
        self.totp = totp
    }

    /// The recovery codes' entry.
    public static func recoveryCodes(state: ProviderState) -> ProviderConfig {
        var config = ProviderConfig(state: state)
        config.totp = nil
        config.recoveryCodes = true
        return config
    }

    /// An entry for the factor service registered as `factorServiceID`.
    public init(state: ProviderState, factorServiceID: String) {
        self.state = state
        self.factorServiceID = factorServiceID
    }
}
