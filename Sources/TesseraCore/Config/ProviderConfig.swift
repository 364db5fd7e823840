/// One `providerConfigs` entry of a ``MultiFactorAuthConfig``: the TOTP provider, or a registered factor service
/// (`factorServiceProviderConfig`, Tessera's extension for factors that run as their own services).
public struct ProviderConfig: Sendable, Hashable {
    /// Whether the entry switches its provider on.
    public var state: ProviderState
    /// The TOTP settings (`totpProviderConfig` in JSON); nil in a factor service's entry.
    public var totp: TOTPProviderConfig?
    /// The id of the factor service the entry switches (`factorServiceProviderConfig.factorId`); nil for TOTP.
    public var factorServiceID: String?

    /// A TOTP entry.
    public init(state: ProviderState, totp: TOTPProviderConfig = TOTPProviderConfig()) {
        self.state = state
        self.totp = totp
    }

    /// An entry for the factor service registered as `factorServiceID`.
    public init(state: ProviderState, factorServiceID: String) {
        self.state = state
        self.factorServiceID = factorServiceID
    }
}
