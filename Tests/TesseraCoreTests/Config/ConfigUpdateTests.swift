import TesseraCore
import TesseraJSON
import Testing

@Suite struct ConfigUpdateTests: ConfigFixtures {
    static let regionFR = #""smsRegionConfig": {"allowByDefault": {"disallowedRegions": ["FR"]}}"#
    static let regionUS = #""smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["US"]}}"#
    static let bothRegions = #"{"smsRegionConfig": {"allowByDefault": {}, "allowlistOnly": {"allowedRegions": []}}}"#
    static let exactlyOne = "smsRegionConfig must have exactly one of allowByDefault or allowlistOnly"

    /// Masked tenant updates that succeed: stored members, body, mask, expected members.
    static let tenantCases: [(String, String, String, String)] = [
        (
            #""smsDailyQuota": 5"#, #"{"displayName": "B", "smsDailyQuota": 9, "bogus": 1, "mfaConfig": "junk"}"#,
            "displayName", #""displayName": "B", "smsDailyQuota": 5"#
        ),
        (#""smsDailyQuota": 5"#, "{}", "smsDailyQuota", ""),
        (#""smsDailyQuota": 5"#, #"{"smsDailyQuota": null}"#, "smsDailyQuota", ""),
        (#""mfaConfig": {"state": "ENABLED"}"#, "{}", "mfaConfig", ""),
        (
            "", #"{"mfaConfig": {"state": "MANDATORY", "enabledProviders": ["PHONE_SMS"]}}"#, "mfaConfig.state",
            #""mfaConfig": {"state": "MANDATORY"}"#
        ),
        ("", "{}", "mfaConfig.state", ""),
        (
            #""mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}"#, "{}", "mfaConfig.state",
            #""mfaConfig": {"enabledProviders": ["PHONE_SMS"]}"#
        ),
        (
            #""mfaConfig": {"enabledProviders": ["PHONE_SMS"]}"#,
            #"{"mfaConfig": {"state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {}}]}}"#,
            "mfaConfig.state,mfaConfig.providerConfigs",
            #""mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"], "#
                + #""providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}"#
        ),
        (
            "", #"{"displayName": "B", "smsDailyQuota": 3}"#, " displayName , smsDailyQuota ",
            #""displayName": "B", "smsDailyQuota": 3"#
        ),
        (
            #""testPhoneNumbers": {"+15555550199": "222222"}"#, #"{"testPhoneNumbers": {"+15555550100": "111111"}}"#,
            "testPhoneNumbers", #""testPhoneNumbers": {"+15555550100": "111111"}"#
        ),
        (
            #""allowPasswordSignup": false"#, #"{"disableAuth": true}"#, "disableAuth,allowPasswordSignup",
            #""disableAuth": true"#
        ),
        (regionFR, "{\(regionUS)}", "smsRegionConfig.allowlistOnly", regionUS),
        (regionFR, "{\(regionUS)}", "smsRegionConfig.allowlistOnly.allowedRegions", regionUS),
        (regionFR, "{}", "smsRegionConfig.allowByDefault", #""smsRegionConfig": {"allowByDefault": {}}"#),
        (
            regionFR, "{}", "smsRegionConfig.allowByDefault.disallowedRegions",
            #""smsRegionConfig": {"allowByDefault": {}}"#
        ),
        (regionFR, "{}", "smsRegionConfig.allowlistOnly", regionFR),
        (regionFR, "{}", "smsRegionConfig", ""),
        (regionFR, "{\(regionUS)}", "smsRegionConfig.allowByDefault,smsRegionConfig.allowlistOnly", regionUS),
        (regionFR, "{\(regionUS)}", "smsRegionConfig.allowlistOnly,smsRegionConfig.allowByDefault", regionUS),
        (regionFR, "{\(regionUS)}", "smsRegionConfig,smsRegionConfig.allowlistOnly", regionUS),
        ("", "{}", "smsRegionConfig.allowlistOnly", ""),
        (
            regionUS, #"{"smsRegionConfig": {"allowByDefault": {"disallowedRegions": ["KP"]}}}"#,
            "smsRegionConfig.allowByDefault.disallowedRegions",
            #""smsRegionConfig": {"allowByDefault": {"disallowedRegions": ["KP"]}}"#
        ),
    ]

    @Test(arguments: tenantCases)
    func maskedTenantUpdate(stored: String, body: String, mask: String, expected: String) throws {
        let result = try ConfigUpdate.apply(
            body: try jsonObject(body), to: try storedTenant(stored), updateMask: mask, paths: .tenant
        )
        let wanted = try storedTenant(expected)
        #expect(result == wanted)
        #expect(JSONValue.object(result).description == JSONValue.object(wanted).description)
    }

    /// Tenant updates that fail: stored members, body, mask, reason, detail.
    static let tenantFailures: [(String, String, String, AuthReason, String)] = [
        ("", "{}", "", .invalidArgument, "updateMask is empty; omit it to replace every field"),
        ("", "{}", " ", .invalidArgument, "updateMask has an empty path"),
        ("", "{}", "displayName,,smsDailyQuota", .invalidArgument, "updateMask has an empty path"),
        ("", "{}", "displayName,", .invalidArgument, "updateMask has an empty path"),
        ("", "{}", "mfaConfig..state", .invalidArgument, "updateMask path 'mfaConfig..state' has an empty segment"),
        ("", "{}", ".state", .invalidArgument, "updateMask path '.state' has an empty segment"),
        ("", "{}", "mfaConfig.", .invalidArgument, "updateMask path 'mfaConfig.' has an empty segment"),
        ("", "{}", "mfaConfig. state", .invalidArgument, "updateMask path 'mfaConfig. state' contains whitespace"),
        ("", "{}", "mfa Config", .invalidArgument, "updateMask path 'mfa Config' contains whitespace"),
        (
            "", "{}", "displayName,\tdisableAuth", .invalidArgument,
            "updateMask path '\tdisableAuth' contains whitespace"
        ),
        ("", "{}", "mfaConfig.foo", .invalidArgument, "updateMask path 'mfaConfig.foo' is not a settable field"),
        ("", "{}", "foo", .invalidArgument, "updateMask path 'foo' is not a settable field"),
        ("", "{}", "mfa", .invalidArgument, "updateMask path 'mfa' is not a settable field"),
        (
            "", "{}", "displayName.first", .invalidArgument,
            "updateMask path 'displayName.first' is not a settable field"
        ),
        (
            "", "{}", "testPhoneNumbers.+15555550100", .invalidArgument,
            "updateMask path 'testPhoneNumbers.+15555550100' is not a settable field"
        ),
        (
            "", "{}", "mfaConfig.providerConfigs.state", .invalidArgument,
            "updateMask path 'mfaConfig.providerConfigs.state' is not a settable field"
        ),
        (
            "", "{}", "mfaConfig.providerConfigs[0]", .invalidArgument,
            "updateMask path 'mfaConfig.providerConfigs[0]' is not a settable field"
        ),
        ("", "{}", "tenantId", .invalidArgument, "updateMask path 'tenantId' names an output-only field"),
        ("", "{}", "name", .invalidArgument, "updateMask path 'name' names an output-only field"),
        (
            "", "{}", "effectiveMfaConfig.state", .invalidArgument,
            "updateMask path 'effectiveMfaConfig.state' names an output-only field"
        ),
        ("", "{}", "displayName", .invalidArgument, "displayName is required"),
        (
            "", #"{"displayName": "B", "smsDailyQuota": -1}"#, "displayName,smsDailyQuota", .invalidConfig,
            "smsDailyQuota must be an integer from 0 to 1000000000"
        ),
        ("", #"{"mfaConfig": "x"}"#, "mfaConfig.state", .invalidConfig, "mfaConfig must be an object"),
        (
            "", #"{"mfaConfig": {"state": "ON"}}"#, "mfaConfig.state", .invalidConfig,
            "mfaConfig.state must be one of DISABLED, ENABLED, MANDATORY"
        ),
        (
            "", #"{"testPhoneNumbers": {"+1": "123456"}}"#, "testPhoneNumbers", .invalidTestingPhoneNumber,
            "testPhoneNumbers entry 0: the key must be an E.164 number ('+' then 8 to 15 digits)"
        ),
        (
            regionFR, bothRegions, "smsRegionConfig.allowByDefault,smsRegionConfig.allowlistOnly", .invalidConfig,
            exactlyOne
        ),
        (regionFR, bothRegions, "smsRegionConfig,smsRegionConfig.allowlistOnly", .invalidConfig, exactlyOne),
        (regionFR, bothRegions, "smsRegionConfig.allowlistOnly,smsRegionConfig", .invalidConfig, exactlyOne),
        (
            regionFR, #"{"smsRegionConfig": {}}"#, "smsRegionConfig,smsRegionConfig.allowByDefault", .invalidConfig,
            exactlyOne
        ),
        (
            regionFR, "{\(regionUS)}",
            "smsRegionConfig.allowlistOnly.allowedRegions,"
                + "smsRegionConfig.allowByDefault.disallowedRegions", .invalidConfig, exactlyOne
        ),
    ]

    @Test(arguments: tenantFailures)
    func refusedTenantUpdate(stored: String, body: String, mask: String, reason: AuthReason, detail: String) throws {
        let storedObject = try storedTenant(stored)
        let bodyObject = try jsonObject(body)
        let error = failure {
            try ConfigUpdate.apply(body: bodyObject, to: storedObject, updateMask: mask, paths: .tenant)
        }
        #expect(error == AuthError(reason, detail))
    }

    static let fullProject = #"""
        {"displayName": "Acme", "mfa": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]},
         "signIn": {"allowPasswordSignup": false,
          "phoneNumber": {"enabled": false, "testPhoneNumbers": {"+15555550100": "123456"}}},
         "smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["US"]}}, "smsDailyQuota": 7}
        """#

    /// Masked project updates that succeed from ``fullProject``: body, mask, and the expected change.
    static let projectCases: [(String, String, @Sendable (inout ProjectConfig) -> Void)] = [
        ("{}", "mfa.state", { $0.mfa.state = .disabled }),
        ("{}", "signIn.phoneNumber.testPhoneNumbers", { $0.signIn.phoneNumber.testPhoneNumbers = [:] }),
        (#"{"signIn": {"allowPasswordSignup": false}}"#, "signIn", { $0.signIn.phoneNumber = PhoneSignInConfig() }),
        ("{}", "smsRegionConfig", { $0.smsRegionConfig = .allowAll }),
        ("{}", "smsRegionConfig.allowlistOnly", { $0.smsRegionConfig = .allowAll }),
        (
            #"{"smsRegionConfig": {"allowByDefault": {"disallowedRegions": ["KP"]}}}"#,
            "smsRegionConfig.allowByDefault",
            { $0.smsRegionConfig = .allowByDefault(disallowedRegions: ["KP"]) }
        ),
        ("{}", "displayName", { $0.displayName = "Tessera" }),
        (#"{"mfa": {"enabledProviders": []}}"#, "mfa.enabledProviders", { $0.mfa.enabledProviders = [] }),
        (
            #"{"signIn": {"phoneNumber": {"enabled": true}}}"#, "signIn.phoneNumber.enabled",
            { $0.signIn.phoneNumber.enabled = true }
        ),
        (
            "{}", "smsDailyQuota,signIn.allowPasswordSignup",
            {
                $0.smsDailyQuota = 10_000
                $0.signIn.allowPasswordSignup = true
            }
        ),
    ]

    @Test(arguments: projectCases)
    func maskedProjectUpdate(body: String, mask: String, change: @Sendable (inout ProjectConfig) -> Void) throws {
        let stored = try ProjectConfig(json: try jsonObject(Self.fullProject))
        var expected = stored
        change(&expected)
        let result = try ConfigUpdate.apply(
            body: try jsonObject(body), to: stored.json, updateMask: mask, paths: .project
        )
        #expect(result == expected.json)
        #expect(JSONValue.object(result).description == JSONValue.object(expected.json).description)
    }

    @Test(arguments: [
        ("mfaConfig.state", "updateMask path 'mfaConfig.state' is not a settable field"),
        (
            "signIn.phoneNumber.testPhoneNumbers.+15555550100",
            "updateMask path 'signIn.phoneNumber.testPhoneNumbers.+15555550100' is not a settable field"
        ),
        ("tenantId", "updateMask path 'tenantId' is not a settable field"),
        ("signIn.,displayName", "updateMask path 'signIn.' has an empty segment"),
    ])
    func refusedProjectMask(mask: String, detail: String) throws {
        let stored = ProjectConfig().json
        #expect(
            failure { try ConfigUpdate.apply(body: [:], to: stored, updateMask: mask, paths: .project) }
                == AuthError(.invalidArgument, detail))
    }

    @Test func withoutAMaskTheBodyReplacesEverySettableField() throws {
        let full = try ProjectConfig(json: try jsonObject(Self.fullProject)).json
        #expect(try ConfigUpdate.apply(body: [:], to: full, updateMask: nil, paths: .project) == ProjectConfig().json)
        let fromDefaults = try ConfigUpdate.apply(
            body: try jsonObject(Self.fullProject), to: ProjectConfig().json, updateMask: nil, paths: .project
        )
        #expect(fromDefaults == full)
        #expect(try ConfigUpdate.apply(body: full, to: full, updateMask: nil, paths: .project) == full)

        let tenant = try storedTenant(#""mfaConfig": {}, "disableAuth": true, "smsDailyQuota": 5, \#(Self.regionFR)"#)
        let replaced = try ConfigUpdate.apply(
            body: try jsonObject(#"{"displayName": "B"}"#), to: tenant, updateMask: nil, paths: .tenant
        )
        #expect(replaced == (try storedTenant(#""displayName": "B""#)))
        #expect(try ConfigUpdate.apply(body: tenant, to: tenant, updateMask: nil, paths: .tenant) == tenant)
    }

    @Test func withoutAMaskTheBodyIsValidatedWhole() throws {
        let stored = try storedTenant("")
        let cases: [(String, AuthError)] = [
            (
                #"{"displayName": "B", "smsDailyQuota": -1}"#,
                AuthError(.invalidConfig, "smsDailyQuota must be an integer from 0 to 1000000000")
            ),
            (
                #"{"displayName": "B", "tenantId": "t2"}"#,
                AuthError(.invalidArgument, "tenantId does not name the tenant being written")
            ),
            (#"{"smsDailyQuota": 5}"#, AuthError(.invalidArgument, "displayName is required")),
            (#"{"displayName": "B", "bogus": true}"#, AuthError(.invalidArgument, "bogus is not a known field")),
        ]
        for (body, expected) in cases {
            let object = try jsonObject(body)
            #expect(
                failure { try ConfigUpdate.apply(body: object, to: stored, updateMask: nil, paths: .tenant) }
                    == expected)
        }
        let unnamed = try jsonObject(#"{"displayName": "B"}"#)
        #expect(
            failure { try ConfigUpdate.apply(body: unnamed, to: [:], updateMask: nil, paths: .tenant) }
                == AuthError(.invalidArgument, "the stored tenant has no tenantId"))
    }

    @Test func maskedTenantUpdatesKeepTheTenantsIdentity() throws {
        let stored = Tenant(tenantId: "abc", displayName: "A").json
        let body = try jsonObject(#"{"displayName": "B", "tenantId": "other"}"#)
        let result = try ConfigUpdate.apply(body: body, to: stored, updateMask: "displayName", paths: .tenant)
        #expect(result["tenantId"] == "abc")
        #expect(result["name"] == "tenants/abc")
        #expect(result["displayName"] == "B")
    }

    @Test func settablePathsAreEveryPrefixOfTheFieldTree() {
        let smsRegionPaths = [
            "smsRegionConfig", "smsRegionConfig.allowByDefault", "smsRegionConfig.allowByDefault.disallowedRegions",
            "smsRegionConfig.allowlistOnly", "smsRegionConfig.allowlistOnly.allowedRegions",
        ]
        #expect(
            ConfigPaths.project.settablePaths == [
                "displayName", "mfa", "mfa.state", "mfa.enabledProviders", "mfa.providerConfigs", "signIn",
                "signIn.allowPasswordSignup", "signIn.phoneNumber", "signIn.phoneNumber.enabled",
                "signIn.phoneNumber.testPhoneNumbers",
            ] + smsRegionPaths + ["smsDailyQuota"])
        #expect(
            ConfigPaths.tenant.settablePaths == [
                "displayName", "allowPasswordSignup", "enablePhoneSignIn", "disableAuth", "mfaConfig",
                "mfaConfig.state",
                "mfaConfig.enabledProviders", "mfaConfig.providerConfigs", "testPhoneNumbers",
            ] + smsRegionPaths + ["smsDailyQuota"])
        #expect(ConfigPaths.tenant.outputOnlyFields == ["tenantId", "name", "effectiveMfaConfig"])
        #expect(ConfigPaths.project.outputOnlyFields.isEmpty)
    }
}
