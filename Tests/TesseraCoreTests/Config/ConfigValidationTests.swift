import TesseraCore
import TesseraJSON
import Testing

@Suite struct ConfigValidationTests: ConfigFixtures {
    static let mfaLimit = "must be an integer from 0 to 10"
    static let intervals = "mfaConfig.providerConfigs[0].totpProviderConfig.adjacentIntervals \(mfaLimit)"
    static let states = "mfaConfig.state must be one of DISABLED, ENABLED, MANDATORY"
    static let entry = #""providerConfigs": [{"state": "ENABLED", "totpProviderConfig": "#

    /// Tenant members that must be refused, with the reason and detail.
    static let tenantCases: [(String, AuthReason, String)] = [
        (#""mfaConfig": "x""#, .invalidConfig, "mfaConfig must be an object"),
        (#""mfaConfig": {"foo": 1}"#, .invalidConfig, "mfaConfig.foo is not a known field"),
        (#""mfaConfig": {"state": "ON"}"#, .invalidConfig, states),
        (#""mfaConfig": {"state": 1}"#, .invalidConfig, states),
        (
            #""mfaConfig": {"enabledProviders": "PHONE_SMS"}"#, .invalidConfig,
            "mfaConfig.enabledProviders must be an array"
        ),
        (
            #""mfaConfig": {"enabledProviders": ["EMAIL"]}"#, .invalidConfig,
            "mfaConfig.enabledProviders[0] must be one of PHONE_SMS"
        ),
        (
            #""mfaConfig": {"enabledProviders": [null]}"#, .invalidConfig,
            "mfaConfig.enabledProviders[0] must be one of PHONE_SMS"
        ),
        (
            #""mfaConfig": {"enabledProviders": ["PHONE_SMS", "PHONE_SMS"]}"#, .invalidConfig,
            "mfaConfig.enabledProviders[1] repeats PHONE_SMS"
        ),
        (#""mfaConfig": {"providerConfigs": {}}"#, .invalidConfig, "mfaConfig.providerConfigs must be an array"),
        (#""mfaConfig": {"providerConfigs": [1]}"#, .invalidConfig, "mfaConfig.providerConfigs[0] must be an object"),
        (
            #""mfaConfig": {"providerConfigs": [{"state": "ENABLED"}]}"#, .invalidConfig,
            "mfaConfig.providerConfigs[0].totpProviderConfig or mfaConfig.providerConfigs[0].factorServiceProviderConfig"
                + " is required"
        ),
        (
            #""mfaConfig": {"providerConfigs": [{"state": "ENABLED", "factorServiceProviderConfig": {"factorId": "E"}}]}"#,
            .invalidConfig,
            "mfaConfig.providerConfigs[0].factorServiceProviderConfig.factorId must be 1 to 32 of a-z, 0-9 and -"
        ),
        (
            #""mfaConfig": {"providerConfigs": [{"state": "ENABLED", "factorServiceProviderConfig": {}}]}"#,
            .invalidConfig,
            "mfaConfig.providerConfigs[0].factorServiceProviderConfig.factorId must be 1 to 32 of a-z, 0-9 and -"
        ),
        (
            #""mfaConfig": {"providerConfigs": [{"state": "ENABLED", "factorServiceProviderConfig": {"id": "e"}}]}"#,
            .invalidConfig, "mfaConfig.providerConfigs[0].factorServiceProviderConfig.id is not a known field"
        ),
        (
            #""mfaConfig": {"providerConfigs": [{"state": "ENABLED", "factorServiceProviderConfig": {"factorId": "e"}, "#
                + #""totpProviderConfig": {}}]}"#,
            .invalidConfig,
            "mfaConfig.providerConfigs[0] may have only one of totpProviderConfig and factorServiceProviderConfig"
        ),
        (
            #""mfaConfig": {"providerConfigs": [{"state": "ENABLED", "factorServiceProviderConfig": {"factorId": "e"}}, "#
                + #"{"state": "DISABLED", "factorServiceProviderConfig": {"factorId": "e"}}]}"#,
            .invalidConfig, "mfaConfig.providerConfigs[1] repeats the factor service e"
        ),
        (
            #""mfaConfig": {"providerConfigs": [{"totpProviderConfig": {}}]}"#, .invalidConfig,
            "mfaConfig.providerConfigs[0].state is required"
        ),
        (
            #""mfaConfig": {"providerConfigs": [{"state": "MANDATORY", "totpProviderConfig": {}}]}"#, .invalidConfig,
            "mfaConfig.providerConfigs[0].state must be one of ENABLED, DISABLED"
        ),
        (
            #""mfaConfig": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {}, "smsConfig": {}}]}"#,
            .invalidConfig, "mfaConfig.providerConfigs[0].smsConfig is not a known field"
        ),
        (
            #""mfaConfig": {"# + entry + #""x"}]}"#, .invalidConfig,
            "mfaConfig.providerConfigs[0].totpProviderConfig must be an object"
        ),
        (
            #""mfaConfig": {"# + entry + #"{"period": 30}}]}"#, .invalidConfig,
            "mfaConfig.providerConfigs[0].totpProviderConfig.period is not a known field"
        ),
        (#""mfaConfig": {"# + entry + #"{"adjacentIntervals": 5.0}}]}"#, .invalidConfig, intervals),
        (#""mfaConfig": {"# + entry + #"{"adjacentIntervals": "5"}}]}"#, .invalidConfig, intervals),
        (#""mfaConfig": {"# + entry + #"{"adjacentIntervals": 11}}]}"#, .invalidConfig, intervals),
        (#""mfaConfig": {"# + entry + #"{"adjacentIntervals": -1}}]}"#, .invalidConfig, intervals),
        (
            #""mfaConfig": {"# + entry + #"{}}, {"state": "DISABLED", "totpProviderConfig": {}}]}"#, .invalidConfig,
            "mfaConfig.providerConfigs[1] is a second TOTP provider config; one is allowed"
        ),
        (
            #""smsRegionConfig": {}"#, .invalidConfig,
            "smsRegionConfig must have exactly one of allowByDefault or allowlistOnly"
        ),
        (
            #""smsRegionConfig": {"allowByDefault": {}, "allowlistOnly": {}}"#, .invalidConfig,
            "smsRegionConfig must have exactly one of allowByDefault or allowlistOnly"
        ),
        (#""smsRegionConfig": {"denyAll": {}}"#, .invalidConfig, "smsRegionConfig.denyAll is not a known field"),
        (#""smsRegionConfig": "US""#, .invalidConfig, "smsRegionConfig must be an object"),
        (
            #""smsRegionConfig": {"allowByDefault": []}"#, .invalidConfig,
            "smsRegionConfig.allowByDefault must be an object"
        ),
        (
            #""smsRegionConfig": {"allowByDefault": {"allowedRegions": []}}"#, .invalidConfig,
            "smsRegionConfig.allowByDefault.allowedRegions is not a known field"
        ),
        (
            #""smsRegionConfig": {"allowByDefault": {"disallowedRegions": "US"}}"#, .invalidConfig,
            "smsRegionConfig.allowByDefault.disallowedRegions must be an array"
        ),
        (
            #""smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["US", "us"]}}"#, .invalidConfig,
            "smsRegionConfig.allowlistOnly.allowedRegions[1] must be a two-letter upper-case region code"
        ),
        (
            #""smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["USA"]}}"#, .invalidConfig,
            "smsRegionConfig.allowlistOnly.allowedRegions[0] must be a two-letter upper-case region code"
        ),
        (
            #""smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["U1"]}}"#, .invalidConfig,
            "smsRegionConfig.allowlistOnly.allowedRegions[0] must be a two-letter upper-case region code"
        ),
        (
            #""smsRegionConfig": {"allowlistOnly": {"allowedRegions": [1]}}"#, .invalidConfig,
            "smsRegionConfig.allowlistOnly.allowedRegions[0] must be a two-letter upper-case region code"
        ),
        (#""smsDailyQuota": -1"#, .invalidConfig, "smsDailyQuota must be an integer from 0 to 1000000000"),
        (#""smsDailyQuota": 1000000001"#, .invalidConfig, "smsDailyQuota must be an integer from 0 to 1000000000"),
        (#""smsDailyQuota": 5.0"#, .invalidConfig, "smsDailyQuota must be an integer from 0 to 1000000000"),
        (#""smsDailyQuota": "5""#, .invalidConfig, "smsDailyQuota must be an integer from 0 to 1000000000"),
        (
            #""testPhoneNumbers": []"#, .invalidArgument,
            "testPhoneNumbers must be an object mapping E.164 numbers to 6-digit codes"
        ),
        (
            #""testPhoneNumbers": {"15555550100": "123456"}"#, .invalidTestingPhoneNumber,
            "testPhoneNumbers entry 0: the key must be an E.164 number ('+' then 8 to 15 digits)"
        ),
        (
            #""testPhoneNumbers": {"+15555550100": "123456", "+05555550100": "123456"}"#, .invalidTestingPhoneNumber,
            "testPhoneNumbers entry 1: the key must be an E.164 number ('+' then 8 to 15 digits)"
        ),
        (
            #""testPhoneNumbers": {"+15555550100": "12345"}"#, .invalidTestingPhoneNumber,
            "testPhoneNumbers entry 0: the code must be a string of 6 digits"
        ),
        (
            #""testPhoneNumbers": {"+15555550100": 123456}"#, .invalidTestingPhoneNumber,
            "testPhoneNumbers entry 0: the code must be a string of 6 digits"
        ),
        (
            #""testPhoneNumbers": {"+15555550100": "12345a"}"#, .invalidTestingPhoneNumber,
            "testPhoneNumbers entry 0: the code must be a string of 6 digits"
        ),
        (
            #""testPhoneNumbers": {"+15555550100": "１２３４５６"}"#, .invalidTestingPhoneNumber,
            "testPhoneNumbers entry 0: the code must be a string of 6 digits"
        ),
        (
            #""testPhoneNumbers": {"+15555550100": null}"#, .invalidTestingPhoneNumber,
            "testPhoneNumbers entry 0: the code must be a string of 6 digits"
        ),
        (
            #""testPhoneNumbers": {"# + (0...10).map { #""+1555555010\#($0)": "123456""# }.joined(separator: ",") + "}",
            .maximumTestPhoneNumberExceeded, "testPhoneNumbers has 11 entries; at most 10"
        ),
        (#""allowPasswordSignup": "true""#, .invalidArgument, "allowPasswordSignup must be a boolean"),
        (#""enablePhoneSignIn": 1"#, .invalidArgument, "enablePhoneSignIn must be a boolean"),
        (#""disableAuth": {}"#, .invalidArgument, "disableAuth must be a boolean"),
        (#""mfa": {}"#, .invalidArgument, "mfa is not a known field"),
        (#""bogus": 1"#, .invalidArgument, "bogus is not a known field"),
        (#""tenantId": "t2""#, .invalidArgument, "tenantId does not name the tenant being written"),
        (#""tenantId": 1"#, .invalidArgument, "tenantId does not name the tenant being written"),
        (#""name": "tenants/t2""#, .invalidArgument, "name does not name the tenant being written"),
        (#""name": "t1""#, .invalidArgument, "name does not name the tenant being written"),
    ]

    @Test(arguments: tenantCases)
    func tenantRefuses(members: String, reason: AuthReason, detail: String) throws {
        let body = try tenantBody(members)
        #expect(failure { try Tenant(json: body, tenantId: "t1") } == AuthError(reason, detail))
    }

    /// Whole tenant bodies whose display name must be refused.
    static let displayNameCases: [(String, String)] = [
        (#"{}"#, "displayName is required"),
        (#"{"displayName": null}"#, "displayName is required"),
        (#"{"displayName": ""}"#, "displayName must have 1 to 128 characters"),
        (#"{"displayName": "\#(String(repeating: "x", count: 129))"}"#, "displayName must have 1 to 128 characters"),
        (#"{"displayName": "a\nb"}"#, "displayName must not contain control characters"),
        (#"{"displayName": "a\u0000"}"#, "displayName must not contain control characters"),
        (#"{"displayName": 5}"#, "displayName must be a string"),
    ]

    @Test(arguments: displayNameCases)
    func tenantDisplayNameIsRequiredAndBounded(body: String, detail: String) throws {
        let object = try jsonObject(body)
        #expect(failure { try Tenant(json: object, tenantId: "t1") } == AuthError(.invalidArgument, detail))
    }

    /// Project bodies that must be refused; details carry the project's paths (`mfa.`, `signIn.`).
    static let projectCases: [(String, AuthReason, String)] = [
        (#"{"displayName": ""}"#, .invalidArgument, "displayName must have 1 to 128 characters"),
        (
            #"{"displayName": "\#(String(repeating: "é", count: 129))"}"#, .invalidArgument,
            "displayName must have 1 to 128 characters"
        ),
        (#"{"displayName": "a\tb"}"#, .invalidArgument, "displayName must not contain control characters"),
        (#"{"mfaConfig": {}}"#, .invalidArgument, "mfaConfig is not a known field"),
        (
            #"{"mfa": {"# + entry + #"{"adjacentIntervals": 11}}]}}"#, .invalidConfig,
            "mfa.providerConfigs[0].totpProviderConfig.adjacentIntervals \(mfaLimit)"
        ),
        (#"{"mfa": []}"#, .invalidConfig, "mfa must be an object"),
        (#"{"signIn": true}"#, .invalidArgument, "signIn must be an object"),
        (
            #"{"signIn": {"allowPasswordSignUp": true}}"#, .invalidArgument,
            "signIn.allowPasswordSignUp is not a known field"
        ),
        (#"{"signIn": {"allowPasswordSignup": 0}}"#, .invalidArgument, "signIn.allowPasswordSignup must be a boolean"),
        (#"{"signIn": {"phoneNumber": []}}"#, .invalidArgument, "signIn.phoneNumber must be an object"),
        (
            #"{"signIn": {"phoneNumber": {"enabled": "yes"}}}"#, .invalidArgument,
            "signIn.phoneNumber.enabled must be a boolean"
        ),
        (
            #"{"signIn": {"phoneNumber": {"testNumbers": {}}}}"#, .invalidArgument,
            "signIn.phoneNumber.testNumbers is not a known field"
        ),
        (
            #"{"signIn": {"phoneNumber": {"testPhoneNumbers": {"+1555": "123456"}}}}"#, .invalidTestingPhoneNumber,
            "signIn.phoneNumber.testPhoneNumbers entry 0: the key must be an E.164 number ('+' then 8 to 15 digits)"
        ),
        (
            #"{"smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["GB"]}, "allowByDefault": {}}}"#,
            .invalidConfig, "smsRegionConfig must have exactly one of allowByDefault or allowlistOnly"
        ),
        (#"{"smsDailyQuota": 1e3}"#, .invalidConfig, "smsDailyQuota must be an integer from 0 to 1000000000"),
        (#"{"tenantId": "t1"}"#, .invalidArgument, "tenantId is not a known field"),
    ]

    @Test(arguments: projectCases)
    func projectRefuses(body: String, reason: AuthReason, detail: String) throws {
        let object = try jsonObject(body)
        #expect(failure { try ProjectConfig(json: object) } == AuthError(reason, detail))
    }

    @Test func nestedReadersNameTheirPathBelowTheOneGiven() throws {
        let object = try jsonObject(#"{"state": "ON"}"#)
        #expect(
            failure { try MultiFactorAuthConfig(json: object) }
                == AuthError(
                    .invalidConfig,
                    "state must be one of DISABLED, ENABLED, MANDATORY"))
        let regions = try jsonObject("{}")
        #expect(
            failure { try SMSRegionConfig(json: regions) }
                == AuthError(
                    .invalidConfig,
                    "the object must have exactly one of allowByDefault or allowlistOnly"))
        let path = JSONPath([.key("config"), .key("smsRegionConfig")])
        #expect(
            failure { try SMSRegionConfig(json: regions, at: path) }
                == AuthError(
                    .invalidConfig,
                    "config.smsRegionConfig must have exactly one of allowByDefault or allowlistOnly"))
    }

    @Test func acceptsTheBoundsAndTheOutputFieldsOfTheSameTenant() throws {
        let limits = try tenant(
            #""displayName": "\#(String(repeating: "🙂", count: 128))", "smsDailyQuota": 1000000000, "#
                + #""mfaConfig": {"# + Self.entry + #"{"adjacentIntervals": 10}}]}, "#
                + #""testPhoneNumbers": {"#
                + (0...9).map { #""+1555555010\#($0)": "00000\#($0)""# }
                .joined(separator: ",") + "}"
        )
        #expect(limits.smsDailyQuota == 1_000_000_000)
        #expect(limits.mfaConfig?.providerConfigs.first?.totp?.adjacentIntervals == 10)
        #expect(limits.testPhoneNumbers?.count == 10)
        let zero = try tenant(#""smsDailyQuota": 0, "mfaConfig": {"# + Self.entry + #"{"adjacentIntervals": 0}}]}"#)
        #expect(zero.smsDailyQuota == 0)
        #expect(zero.mfaConfig?.providerConfigs.first?.totp?.adjacentIntervals == 0)
        let echoed = try tenant(#""tenantId": "t1", "name": "tenants/t1", "effectiveMfaConfig": "anything""#)
        #expect(echoed == Tenant(tenantId: "t1", displayName: "A"))
    }

    @Test func nullMeansOmitted() throws {
        let cleared = try tenant(
            #""mfaConfig": null, "testPhoneNumbers": null, "smsRegionConfig": null, "smsDailyQuota": null, "#
                + #""allowPasswordSignup": null, "tenantId": null"#
        )
        #expect(cleared == Tenant(tenantId: "t1", displayName: "A"))
        let project = try ProjectConfig(json: try jsonObject(#"{"mfa": {"state": null}, "displayName": null}"#))
        #expect(project == ProjectConfig())
    }

    static let e164Cases: [(String, Bool)] = [
        ("+15555550100", true), ("+12345678", true), ("+123456789012345", true), ("+1234567", false),
        ("+1234567890123456", false), ("15555550100", false), ("+05555550100", false), ("+1 555 555 0100", false),
        ("+1-555-5550100", false), ("+", false), ("", false), ("++15555550100", false), ("+1555555010a", false),
        ("+１５５５５５５０１００", false),
    ]

    @Test(arguments: e164Cases)
    func e164(number: String, valid: Bool) {
        #expect(PhoneNumber.isE164(number) == valid)
    }
}
