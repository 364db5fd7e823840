/// One `providerConfigs` entry of a ``MultiFactorAuthConfig``: today always the TOTP provider.
public struct ProviderConfig: Sendable, Hashable {
    /// Whether the entry switches TOTP on.
    public var state: ProviderState
    /// The TOTP settings (`totpProviderConfig` in JSON).
    public var totp: TOTPProviderConfig

    /// Creates an entry.
    public init(state: ProviderState, totp: TOTPProviderConfig = TOTPProviderConfig()) {
        self.state = state
        self.totp = totp
    }
}
