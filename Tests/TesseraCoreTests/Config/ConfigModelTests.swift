import TesseraCore
import TesseraJSON
import Testing

@Suite struct ConfigModelTests: ConfigFixtures {
    static let fullProject = #"""
        {"displayName": "Acme", "mfa": {"state": "MANDATORY", "enabledProviders": ["PHONE_SMS"],
          "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 2}}]},
         "signIn": {"allowPasswordSignup": false,
          "phoneNumber": {"enabled": false, "testPhoneNumbers": {"+15555550100": "123456", "+15555550101": "654321"}}},
         "smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["US", "CA"]}}, "smsDailyQuota": 7}
        """#

    static let fullTenant = #"""
        {"tenantId": "t1", "name": "tenants/t1", "displayName": "Tenant One", "allowPasswordSignup": false,
         "enablePhoneSignIn": false, "disableAuth": true,
         "mfaConfig": {"state": "ENABLED", "enabledProviders": [], "providerConfigs": [
           {"state": "DISABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]},
         "testPhoneNumbers": {"+15555550100": "000000"},
         "smsRegionConfig": {"allowByDefault": {"disallowedRegions": ["KP", "IR"]}}, "smsDailyQuota": 0}
        """#

    @Test func projectDefaultsAreFilledAndWrittenOut() throws {
        let config = try ProjectConfig(json: [:])
        #expect(config == ProjectConfig())
        let expected = try jsonObject(
            #"""
            {"displayName": "Tessera", "mfa": {"state": "DISABLED", "enabledProviders": [], "providerConfigs": []},
             "signIn": {"allowPasswordSignup": true, "phoneNumber": {"enabled": true, "testPhoneNumbers": {}}},
             "smsRegionConfig": {"allowByDefault": {"disallowedRegions": []}}, "smsDailyQuota": 10000}
            """#)
        #expect(config.json == expected)
        #expect(JSONValue.object(config.json).description == JSONValue.object(expected).description)
    }

    @Test func tenantDefaultsOmitOverridesAndAddOutputFields() throws {
        let tenant = try tenant("")
        #expect(tenant == Tenant(tenantId: "t1", displayName: "A"))
        #expect(tenant.name == "tenants/t1")
        let expected = try jsonObject(
            #"""
            {"tenantId": "t1", "name": "tenants/t1", "displayName": "A", "allowPasswordSignup": true,
             "enablePhoneSignIn": true, "disableAuth": false}
            """#)
        #expect(JSONValue.object(tenant.json).description == JSONValue.object(expected).description)
    }

    @Test func factorServiceEntriesEnableTheirServiceBesideTOTP() throws {
        let text = #"""
            {"state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 2}},
             {"state": "ENABLED", "factorServiceProviderConfig": {"factorId": "email"}},
             {"state": "DISABLED", "factorServiceProviderConfig": {"factorId": "push"}}]}
            """#
        let mfa = try MultiFactorAuthConfig(json: try jsonObject(text))
        #expect(mfa.totpAdjacentIntervals == 2)
        #expect(mfa.enablesFactorService("email"))
        #expect(!mfa.enablesFactorService("push"))
        #expect(!mfa.enablesFactorService("sms"))
        var off = mfa
        off.state = .disabled
        #expect(!off.enablesFactorService("email"))
        #expect(try MultiFactorAuthConfig(json: mfa.json) == mfa)
        let serviceOnly = try MultiFactorAuthConfig(
            json: try jsonObject(
                #"{"state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "factorServiceProviderConfig": {"factorId": "e"}}]}"#
            ))
        #expect(serviceOnly.totpAdjacentIntervals == nil)
    }

    @Test func defaultsInsideNestedObjects() throws {
        let mfa = try MultiFactorAuthConfig(
            json: try jsonObject(
                #"{"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {}}]}"#
            ))
        #expect(mfa == MultiFactorAuthConfig(providerConfigs: [ProviderConfig(state: .enabled)]))
        #expect(mfa.providerConfigs.first?.totp?.adjacentIntervals == 5)
        let allowlist = try SMSRegionConfig(json: try jsonObject(#"{"allowlistOnly": {}}"#))
        #expect(allowlist == .allowlistOnly(allowedRegions: []))
        let signIn = try SignInConfig(json: try jsonObject(#"{"phoneNumber": {}}"#))
        #expect(signIn == SignInConfig())
    }

    @Test(arguments: [fullProject, "{}", #"{"mfa": {"state": "ENABLED"}}"#])
    func projectRoundTripsExactly(text: String) throws {
        let config = try ProjectConfig(json: try jsonObject(text))
        let again = try ProjectConfig(json: config.json)
        #expect(again == config)
        #expect(JSONValue.object(again.json).description == JSONValue.object(config.json).description)
    }

    @Test func fullProjectKeepsEveryValue() throws {
        let config = try ProjectConfig(json: try jsonObject(Self.fullProject))
        #expect(config.json == (try jsonObject(Self.fullProject)))
        #expect(config.displayName == "Acme")
        #expect(config.signIn.phoneNumber.testPhoneNumbers == ["+15555550100": "123456", "+15555550101": "654321"])
        #expect(config.smsRegionConfig == .allowlistOnly(allowedRegions: ["US", "CA"]))
    }

    @Test(arguments: [fullTenant, #"{"displayName": "B"}"#, #"{"displayName": "B", "testPhoneNumbers": {}}"#])
    func tenantRoundTripsExactly(text: String) throws {
        let tenant = try Tenant(json: try jsonObject(text), tenantId: "t1")
        let again = try Tenant(json: tenant.json, tenantId: "t1")
        #expect(again == tenant)
        #expect(JSONValue.object(again.json).description == JSONValue.object(tenant.json).description)
    }

    @Test func fullTenantKeepsEveryValueAndEmptyOverridesStayPresent() throws {
        let full = try Tenant(json: try jsonObject(Self.fullTenant), tenantId: "t1")
        #expect(full.json == (try jsonObject(Self.fullTenant)))
        let empty = try tenant(#""testPhoneNumbers": {}, "mfaConfig": {}"#)
        #expect(empty.testPhoneNumbers == [:])
        #expect(empty.mfaConfig == MultiFactorAuthConfig())
        #expect(empty.json["testPhoneNumbers"] == .object([:]))
    }

    @Test func tenantsGetAddsTheEffectiveMFAConfig() throws {
        let project = ProjectConfig(mfa: MultiFactorAuthConfig(state: .mandatory, enabledProviders: [.phoneSMS]))
        let inheriting = try tenant("")
        #expect(inheriting.json(effectiveUnder: project)["effectiveMfaConfig"] == .object(project.mfa.json))
        let overriding = try tenant(#""mfaConfig": {"state": "DISABLED"}"#)
        #expect(overriding.json(effectiveUnder: project)["effectiveMfaConfig"] == .object(MultiFactorAuthConfig().json))
        let echoed = try Tenant(json: overriding.json(effectiveUnder: project), tenantId: "t1")
        #expect(echoed == overriding)
    }

    /// Rule 2 of API §4 for every state: (state, providers, TOTP entry state, phone enabled, TOTP window).
    static let enablementCases: [(MFAState, [MFAProvider], ProviderState?, Bool, Int?)] = [
        (.disabled, [.phoneSMS], .enabled, false, nil),
        (.disabled, [], nil, false, nil),
        (.enabled, [.phoneSMS], .enabled, true, 3),
        (.enabled, [], .enabled, false, 3),
        (.enabled, [.phoneSMS], .disabled, true, nil),
        (.enabled, [], nil, false, nil),
        (.mandatory, [.phoneSMS], .enabled, true, 3),
        (.mandatory, [], .disabled, false, nil),
        (.mandatory, [.phoneSMS], nil, true, nil),
    ]

    @Test(arguments: enablementCases)
    func providerEnablement(
        state: MFAState, providers: [MFAProvider], totpState: ProviderState?, phone: Bool, totp: Int?
    ) {
        let configs = totpState.map { [ProviderConfig(state: $0, totp: TOTPProviderConfig(adjacentIntervals: 3))] }
        let mfa = MultiFactorAuthConfig(state: state, enabledProviders: providers, providerConfigs: configs ?? [])
        #expect(mfa.isPhoneEnabled == phone)
        #expect(mfa.totpAdjacentIntervals == totp)
    }

    static let regionCases: [(SMSRegionConfig, String, Bool)] = [
        (.allowAll, "US", true),
        (.allowByDefault(disallowedRegions: ["KP"]), "KP", false),
        (.allowByDefault(disallowedRegions: ["KP"]), "US", true),
        (.allowlistOnly(allowedRegions: ["US"]), "US", true),
        (.allowlistOnly(allowedRegions: ["US"]), "CA", false),
        (.allowlistOnly(allowedRegions: []), "US", false),
    ]

    @Test(arguments: regionCases)
    func regionAllowance(config: SMSRegionConfig, region: String, allowed: Bool) {
        #expect(config.allows(region: region) == allowed)
    }
}
