import Testing

@testable import TesseraCore

@Suite struct EffectiveConfigTests: ConfigFixtures {
    static let project = ProjectConfig(
        displayName: "Acme",
        mfa: MultiFactorAuthConfig(state: .mandatory, enabledProviders: [.phoneSMS]),
        signIn: SignInConfig(
            allowPasswordSignup: false,
            phoneNumber: PhoneSignInConfig(enabled: false, testPhoneNumbers: ["+15555550100": "123456"])
        ),
        smsRegionConfig: .allowlistOnly(allowedRegions: ["US"]),
        smsDailyQuota: 50
    )

    @Test func projectLevelRunsUnderTheProject() {
        let effective = EffectiveConfig(project: Self.project)
        #expect(effective.mfa == Self.project.mfa)
        #expect(effective.testPhoneNumbers == ["+15555550100": "123456"])
        #expect(effective.smsRegionConfig == .allowlistOnly(allowedRegions: ["US"]))
        #expect(effective.smsDailyQuota == 50)
        #expect(!effective.allowPasswordSignup)
        #expect(!effective.phoneSignInEnabled)
        #expect(!effective.disabled)
        #expect(effective.issuerName == "Acme")
        #expect(effective.tenantId == nil)
    }

    @Test func tenantWithoutOverridesInheritsButKeepsItsOwnFlags() {
        let tenant = Tenant(tenantId: "t1", displayName: "One", disableAuth: true)
        let effective = EffectiveConfig(project: Self.project, tenant: tenant)
        #expect(effective.mfa == Self.project.mfa)
        #expect(effective.mfa.isPhoneEnabled)
        #expect(effective.testPhoneNumbers == ["+15555550100": "123456"])
        #expect(effective.smsRegionConfig == .allowlistOnly(allowedRegions: ["US"]))
        #expect(effective.smsDailyQuota == 50)
        #expect(effective.allowPasswordSignup)
        #expect(effective.phoneSignInEnabled)
        #expect(effective.disabled)
        #expect(effective.issuerName == "One")
        #expect(effective.tenantId == "t1")
    }

    @Test func presentOverridesReplaceTheProjectsWhole() {
        let tenant = Tenant(
            tenantId: "t1", displayName: "One",
            mfaConfig: MultiFactorAuthConfig(state: .disabled, enabledProviders: [.phoneSMS]),
            testPhoneNumbers: [:], smsRegionConfig: .allowAll, smsDailyQuota: 0
        )
        let effective = EffectiveConfig(project: Self.project, tenant: tenant)
        #expect(effective.mfa.state == .disabled)
        #expect(!effective.mfa.isPhoneEnabled)
        #expect(effective.testPhoneNumbers.isEmpty)
        #expect(effective.smsRegionConfig.allows(region: "FR"))
        #expect(effective.smsDailyQuota == 0)
    }

    @Test func anOverrideIsNotMergedFieldByField() {
        let tenant = Tenant(
            tenantId: "t1", displayName: "One",
            mfaConfig: MultiFactorAuthConfig(state: .enabled, providerConfigs: [ProviderConfig(state: .enabled)])
        )
        let effective = EffectiveConfig(project: Self.project, tenant: tenant)
        #expect(effective.mfa.enabledProviders.isEmpty)
        #expect(!effective.mfa.isPhoneEnabled)
        #expect(effective.mfa.totpAdjacentIntervals == 5)
    }
}

@Suite struct StoredConfigTextsTests {
    /// These stores resolve the texts they are given and read nothing.
    struct Unread: Error {}

    @Test func eachStoredTextIsResolvedAfreshAndAChangedTextIsSeenAtOnce() throws {
        let store = ConfigStore(changes: ChangeFeed()) { _ in throw Unread() }
        let enabled = StoredTexts(project: nil, tenantID: "t1", tenant: #"{"displayName":"One"}"#)
        let disabled = StoredTexts(project: nil, tenantID: "t1", tenant: #"{"displayName":"One","disableAuth":true}"#)
        #expect(try !store.effective(enabled).disabled)
        #expect(try store.effective(disabled).disabled)
        #expect(try !store.effective(enabled).disabled)
        #expect(try store.effective(disabled) == store.effective(disabled))
        let project = StoredTexts(project: #"{"displayName":"Acme"}"#, tenantID: nil, tenant: nil)
        #expect(try store.effective(project).issuerName == "Acme")
        #expect(try store.effective(project).tenantId == nil)
    }

    @Test func aNamedTenantWithoutARowIsNotFoundEveryTime() {
        let store = ConfigStore(changes: ChangeFeed()) { _ in throw Unread() }
        let missing = StoredTexts(project: nil, tenantID: "gone", tenant: nil)
        for _ in 0..<2 {
            #expect(throws: AuthError.self) { try store.effective(missing) }
        }
    }
}
