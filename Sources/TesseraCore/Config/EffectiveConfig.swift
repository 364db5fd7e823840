/// The settings a user method runs under: the project's at project level, or a tenant's with its overrides applied
/// (API §4 rule 1).
///
/// Each override of the tenant (`mfaConfig`, `testPhoneNumbers`, `smsRegionConfig`, `smsDailyQuota`) replaces the
/// project's value whole when present and inherits it when absent; there is no field-by-field merge, so a tenant
/// `mfaConfig` with state `DISABLED` turns MFA off even under a project whose `mfa` is `MANDATORY`. The tenant's own
/// flags (`allowPasswordSignup`, `enablePhoneSignIn`) apply as they are, not combined with the project's.
public struct EffectiveConfig: Sendable, Hashable {
    /// The MFA settings in force.
    public var mfa: MultiFactorAuthConfig
    /// The test numbers in force.
    public var testPhoneNumbers: [String: String]
    /// The SMS regions in force.
    public var smsRegionConfig: SMSRegionConfig
    /// The daily SMS quota in force.
    public var smsDailyQuota: Int
    /// Whether password sign-up is allowed.
    public var allowPasswordSignup: Bool
    /// Whether phone sign-in is allowed.
    public var phoneSignInEnabled: Bool
    /// Whether the tenant's `disableAuth` refuses every user method (`PROJECT_DISABLED`); false at project level.
    public var disabled: Bool
    /// The TOTP issuer: the tenant's `displayName`, or the project's at project level.
    public var issuerName: String
    /// The tenant, or nil at project level.
    public var tenantId: String?
    /// The tenant's `defaultLanguage`: the pages' language when neither `ui_locales` nor `Accept-Language` names a
    /// known one; nil at project level (English).
    public var defaultLanguage: Language?

    /// Resolves the settings of a tenant, or of the project level when `tenant` is nil.
    public init(project: ProjectConfig, tenant: Tenant? = nil) {
        guard let tenant else {
            mfa = project.mfa
            testPhoneNumbers = project.signIn.phoneNumber.testPhoneNumbers
            smsRegionConfig = project.smsRegionConfig
            smsDailyQuota = project.smsDailyQuota
            allowPasswordSignup = project.signIn.allowPasswordSignup
            phoneSignInEnabled = project.signIn.phoneNumber.enabled
            disabled = false
            issuerName = project.displayName
            tenantId = nil
            defaultLanguage = nil
            return
        }
        mfa = tenant.mfaConfig ?? project.mfa
        testPhoneNumbers = tenant.testPhoneNumbers ?? project.signIn.phoneNumber.testPhoneNumbers
        smsRegionConfig = tenant.smsRegionConfig ?? project.smsRegionConfig
        smsDailyQuota = tenant.smsDailyQuota ?? project.smsDailyQuota
        allowPasswordSignup = tenant.allowPasswordSignup
        phoneSignInEnabled = tenant.enablePhoneSignIn
        disabled = tenant.disableAuth
        issuerName = tenant.displayName
        tenantId = tenant.tenantId
        defaultLanguage = tenant.defaultLanguage
    }
}
