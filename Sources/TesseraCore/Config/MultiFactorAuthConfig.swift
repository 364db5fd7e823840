/// The MFA settings of the project (`mfa`) or of a tenant (`mfaConfig`), API §5.
///
/// Which providers are usable follows API §4 rule 2: ``isPhoneEnabled``, ``totpAdjacentIntervals`` and
/// ``enablesFactorService(_:)`` are the only answers other code should ask, so the rule lives in one place.
public struct MultiFactorAuthConfig: Sendable, Hashable {
    /// Off, offered or required.
    public var state: MFAState
    /// Providers switched on by name (only `PHONE_SMS`), without repeats.
    public var enabledProviders: [MFAProvider]
    /// Providers switched on by configuration: at most one TOTP entry, and one entry per factor service.
    public var providerConfigs: [ProviderConfig]

    /// Creates settings; the defaults are MFA off with no provider.
    public init(
        state: MFAState = .disabled, enabledProviders: [MFAProvider] = [], providerConfigs: [ProviderConfig] = []
    ) {
        self.state = state
        self.enabledProviders = enabledProviders
        self.providerConfigs = providerConfigs
    }

    /// Whether the SMS factor is enabled: the state is `ENABLED` or `MANDATORY` and `PHONE_SMS` is listed.
    public var isPhoneEnabled: Bool {
        state != .disabled && enabledProviders.contains(.phoneSMS)
    }

    /// The TOTP window when TOTP is enabled, else nil: the state is `ENABLED` or `MANDATORY` and the
    /// `providerConfigs` entry with a `totpProviderConfig` has state `ENABLED`.
    public var totpAdjacentIntervals: Int? {
        guard state != .disabled else { return nil }
        return providerConfigs.first { $0.state == .enabled && $0.totp != nil }?.totp?.adjacentIntervals
    }

    /// Whether recovery codes are enabled: the state is `ENABLED` or `MANDATORY` and the `providerConfigs` entry
    /// with a `recoveryCodeProviderConfig` has state `ENABLED`.
    public var enablesRecoveryCodes: Bool {
        state != .disabled && providerConfigs.contains { $0.state == .enabled && $0.recoveryCodes }
    }

    /// Whether the factor service registered as `id` is enabled: the state is `ENABLED` or `MANDATORY` and a
    /// `providerConfigs` entry for it has state `ENABLED`.
    public func enablesFactorService(_ id: String) -> Bool {
        state != .disabled && providerConfigs.contains { $0.state == .enabled && $0.factorServiceID == id }
    }
}
