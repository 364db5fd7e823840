/// A tenant of the project (API §5 `Tenant`): its own users, flags, and optional overrides of project settings.
///
/// The optional members are overrides: nil means the tenant inherits the project's value (see ``EffectiveConfig``),
/// a value replaces the project's whole. Values built with the initializer are taken as given;
/// ``init(json:tenantId:at:)`` is where input is validated.
public struct Tenant: Sendable, Hashable {
    /// The tenant's id (output only in JSON).
    public var tenantId: String
    /// The tenant's name, shown as the TOTP issuer for its users. Required.
    public var displayName: String
    /// Whether `accounts.signUp` may create password accounts in the tenant.
    public var allowPasswordSignup: Bool
    /// Whether phone sign-in works in the tenant.
    public var enablePhoneSignIn: Bool
    /// When true, every user method of the tenant fails with `PROJECT_DISABLED`.
    public var disableAuth: Bool
    /// The tenant's MFA settings, or nil to use the project's `mfa`.
    public var mfaConfig: MultiFactorAuthConfig?
    /// The tenant's test numbers, or nil to use the project's.
    public var testPhoneNumbers: [String: String]?
    /// The tenant's SMS regions, or nil to use the project's.
    public var smsRegionConfig: SMSRegionConfig?
    /// The tenant's daily SMS quota, or nil to use the project's.
    public var smsDailyQuota: Int?
    /// The language of the login pages and mails when the browser names none Tessera knows (`en`, `ja`, `ru`,
    /// `fr`); nil for English. An extension of API §5.
    public var defaultLanguage: Language?

    /// The resource name, `tenants/<tenantId>` (output only in JSON).
    public var name: String { "tenants/\(tenantId)" }

    /// Creates a tenant; flags take the contract's defaults and overrides are absent unless given.
    public init(
        tenantId: String,
        displayName: String,
        allowPasswordSignup: Bool = true,
        enablePhoneSignIn: Bool = true,
        disableAuth: Bool = false,
        mfaConfig: MultiFactorAuthConfig? = nil,
        testPhoneNumbers: [String: String]? = nil,
        smsRegionConfig: SMSRegionConfig? = nil,
        smsDailyQuota: Int? = nil
    ) {
        self.tenantId = tenantId
        self.displayName = displayName
        self.allowPasswordSignup = allowPasswordSignup
        self.enablePhoneSignIn = enablePhoneSignIn
        self.disableAuth = disableAuth
        self.mfaConfig = mfaConfig
        self.testPhoneNumbers = testPhoneNumbers
        self.smsRegionConfig = smsRegionConfig
        self.smsDailyQuota = smsDailyQuota
    }
}
