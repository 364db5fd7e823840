/// The configuration of the project, the deployment itself (API §5 `ProjectConfig`).
///
/// Values built with the initializer are taken as given; ``init(json:at:)`` is where input is validated.
public struct ProjectConfig: Sendable, Hashable {
    /// The display name used when none is configured; it is the TOTP issuer at project level.
    public static let defaultDisplayName = "Tessera"
    /// The daily SMS quota used when none is configured.
    public static let defaultSMSDailyQuota = 10_000
    /// The values `smsDailyQuota` may take, here and in tenants.
    public static let allowedSMSDailyQuota = 0...1_000_000_000

    /// The project's name, shown as the TOTP issuer for project-level users.
    public var displayName: String
    /// The MFA settings of project-level users and of tenants without an `mfaConfig` of their own.
    public var mfa: MultiFactorAuthConfig
    /// First-factor settings, including the test phone numbers tenants inherit.
    public var signIn: SignInConfig
    /// Regions SMS may go to, inherited by tenants without their own.
    public var smsRegionConfig: SMSRegionConfig
    /// SMS a day, inherited by tenants without their own.
    public var smsDailyQuota: Int

    /// Creates a configuration; every parameter defaults to the contract's default.
    public init(
        displayName: String = ProjectConfig.defaultDisplayName,
        mfa: MultiFactorAuthConfig = MultiFactorAuthConfig(),
        signIn: SignInConfig = SignInConfig(),
        smsRegionConfig: SMSRegionConfig = .allowAll,
        smsDailyQuota: Int = ProjectConfig.defaultSMSDailyQuota
    ) {
        self.displayName = displayName
        self.mfa = mfa
        self.signIn = signIn
        self.smsRegionConfig = smsRegionConfig
        self.smsDailyQuota = smsDailyQuota
    }
}
