import ArgumentParser
import TesseraJSON
import Testing

@testable import tessera

@Suite struct MultiFactorSettingsTests {
    let both: JSONValue = [
        "state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
        "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 2]]],
    ]

    @Test func aStateAloneKeepsTheCurrentProvidersAndTheirIntervals() {
        let settings = MultiFactorSettings(state: .mandatory)
        #expect(
            JSONValue.object(settings.config(current: both)) == [
                "state": "MANDATORY", "enabledProviders": ["PHONE_SMS"],
                "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 2]]],
            ])
        #expect(JSONValue.object(settings.config(current: nil)) == ["state": "MANDATORY"])
        #expect(JSONValue.object(settings.config(current: .null)) == ["state": "MANDATORY"])
    }

    @Test func factorServiceEntriesAreKeptAndSwitchedByName() throws {
        let current: JSONValue = [
            "state": "ENABLED",
            "providerConfigs": [
                ["state": "ENABLED", "factorServiceProviderConfig": ["factorId": "email"]],
                ["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 2]],
            ],
        ]
        #expect(
            JSONValue.object(MultiFactorSettings(state: .enabled).config(current: current)) == [
                "state": "ENABLED",
                "providerConfigs": [
                    ["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 2]],
                    ["state": "ENABLED", "factorServiceProviderConfig": ["factorId": "email"]],
                ],
            ])
        let switched = MultiFactorSettings(
            state: .enabled, totp: false, enabledFactorServices: ["push"], disabledFactorServices: ["email"])
        #expect(
            JSONValue.object(switched.config(current: current)) == [
                "state": "ENABLED",
                "providerConfigs": [
                    ["state": "DISABLED", "factorServiceProviderConfig": ["factorId": "email"]],
                    ["state": "ENABLED", "factorServiceProviderConfig": ["factorId": "push"]],
                ],
            ])
        let contradictory = MultiFactorSettings(
            state: .enabled, enabledFactorServices: ["push"], disabledFactorServices: ["push"])
        #expect(throws: AdminUsageError.self) { try contradictory.validate() }
    }

    @Test func providerFlagsOverrideTheCurrentConfig() {
        let phoneOff = MultiFactorSettings(state: .enabled, phoneSMS: false)
        #expect(
            JSONValue.object(phoneOff.config(current: both)) == [
                "state": "ENABLED",
                "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 2]]],
            ])
        let totpOff = MultiFactorSettings(state: .enabled, totp: false)
        #expect(
            JSONValue.object(totpOff.config(current: both))
                == ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]])
        let phoneOn = MultiFactorSettings(state: .enabled, phoneSMS: true, totp: true)
        #expect(
            JSONValue.object(phoneOn.config(current: nil)) == [
                "state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                "providerConfigs": [["state": "ENABLED", "totpProviderConfig": [:]]],
            ])
    }

    @Test func intervalsAloneEnableTOTPAndReplaceTheCurrentValue() {
        let intervals = MultiFactorSettings(state: .enabled, adjacentIntervals: 7)
        #expect(
            JSONValue.object(intervals.config(current: ["state": "DISABLED"])) == [
                "state": "ENABLED",
                "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 7]]],
            ])
        #expect(
            JSONValue.object(intervals.config(current: both))["providerConfigs"]
                == [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 7]]])
    }

    @Test func aDisabledTOTPEntryDoesNotCountAsEnabled() {
        let current: JSONValue = [
            "state": "ENABLED",
            "providerConfigs": [["state": "DISABLED", "totpProviderConfig": ["adjacentIntervals": 2]]],
        ]
        #expect(JSONValue.object(MultiFactorSettings(state: .enabled).config(current: current)) == ["state": "ENABLED"])
    }

    @Test func contradictoryOrOutOfRangeFlagsAreRefused() throws {
        #expect(throws: AdminUsageError("--totp-adjacent-intervals must be from 0 to 10")) {
            try MultiFactorSettings(state: .enabled, adjacentIntervals: 11).validate()
        }
        #expect(throws: AdminUsageError.self) {
            try MultiFactorSettings(state: .enabled, adjacentIntervals: -1).validate()
        }
        #expect(throws: AdminUsageError("--totp-adjacent-intervals cannot be combined with --no-totp")) {
            try MultiFactorSettings(state: .enabled, totp: false, adjacentIntervals: 3).validate()
        }
        try MultiFactorSettings(state: .enabled, totp: true, adjacentIntervals: 0).validate()
        try MultiFactorSettings(state: .enabled, adjacentIntervals: 10).validate()
    }

    @Test func aTenantsCurrentConfigIsItsOwnOrTheInheritedOne() {
        let own: JSONValue = ["mfaConfig": ["state": "ENABLED"], "effectiveMfaConfig": ["state": "ENABLED"]]
        #expect(MultiFactorSettings.currentConfig(ofTenant: own) == ["state": "ENABLED"])
        let inherits: JSONValue = ["effectiveMfaConfig": ["state": "MANDATORY"]]
        #expect(MultiFactorSettings.currentConfig(ofTenant: inherits) == ["state": "MANDATORY"])
        let explicitNull: JSONValue = ["mfaConfig": nil, "effectiveMfaConfig": ["state": "DISABLED"]]
        #expect(MultiFactorSettings.currentConfig(ofTenant: explicitNull) == ["state": "DISABLED"])
        #expect(MultiFactorSettings.currentConfig(ofTenant: [:]) == nil)
    }

    @Test func theCommandLineBuildsTheSettings() throws {
        let command = try AdminConfig.SetMFA.parse([
            "--state", "enabled", "--no-phone-sms", "--totp-adjacent-intervals", "4", "--tenant", "t1",
        ])
        #expect(command.settings == MultiFactorSettings(state: .enabled, phoneSMS: false, adjacentIntervals: 4))
        #expect(command.tenant == "t1")
        let keep = try AdminConfig.SetMFA.parse(["--state", "DISABLED"])
        #expect(keep.settings == MultiFactorSettings(state: .disabled))
        #expect(throws: (any Error).self) { try AdminConfig.SetMFA.parse(["--state", "on"]) }
        #expect(throws: (any Error).self) { try AdminConfig.SetMFA.parse(["--phone-sms"]) }
        #expect(throws: (any Error).self) {
            try AdminConfig.SetMFA.parse(["--state", "enabled", "--no-totp", "--totp-adjacent-intervals", "3"])
        }
    }
}
