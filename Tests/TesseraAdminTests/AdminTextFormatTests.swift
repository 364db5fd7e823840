import TesseraJSON
import Testing

@testable import tessera

@Suite struct AdminTextFormatTests {
    @Test func anObjectIsAlignedKeyValueLinesByDottedPath() {
        let config: JSONValue = [
            "displayName": "Tessera",
            "mfa": [
                "state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                "providerConfigs": [
                    ["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 5]]
                ],
            ],
            "signIn": ["allowPasswordSignup": true, "phoneNumber": ["testPhoneNumbers": [:]]],
            "smsRegionConfig": nil,
            "tags": [],
            "quota": 10.5,
        ]
        let widest = "mfa.providerConfigs[0].totpProviderConfig.adjacentIntervals"
        func line(_ key: String, _ value: String) -> String {
            key + ":" + String(repeating: " ", count: widest.count - key.count + 1) + value
        }
        #expect(
            AdminTextFormat.objectLines(config) == [
                line("displayName", "Tessera"),
                line("mfa.state", "ENABLED"),
                line("mfa.enabledProviders", "PHONE_SMS"),
                line("mfa.providerConfigs[0].state", "ENABLED"),
                line(widest, "5"),
                line("signIn.allowPasswordSignup", "true"),
                line("signIn.phoneNumber.testPhoneNumbers", "{}"),
                line("smsRegionConfig", "-"),
                line("tags", "[]"),
                line("quota", "10.5"),
            ])
        #expect(AdminTextFormat.objectLines(["kid": "k2"]) == ["kid: k2"])
        #expect(AdminTextFormat.objectLines([:]) == ["{}"])
        #expect(AdminTextFormat.objectLines("plain") == ["plain"])
    }

    @Test func aTableIsPaddedToItsWidestCells() {
        let rows = [["t-1", "Acme", "ENABLED"], ["t-22", "", ""]]
        let lines = AdminTextFormat.table(headers: ["ID", "NAME", "MFA"], rows: rows)
        #expect(lines == ["ID    NAME  MFA", "t-1   Acme  ENABLED", "t-22"])
    }

    @Test func listsShowTheMostUsefulColumns() {
        let tenants: JSONValue = [
            "tenants": [
                ["tenantId": "t-1", "displayName": "Acme", "mfaConfig": ["state": "MANDATORY"]],
                ["tenantId": "t-2", "displayName": "Globex"],
            ], "nextPageToken": "abc",
        ]
        #expect(
            AdminListing.tenants.lines(for: tenants) == [
                "TENANT ID  DISPLAY NAME  MFA",
                "t-1        Acme          MANDATORY",
                "t-2        Globex        inherited",
                "more: --page-token abc (or --all)",
            ])
        let users: JSONValue = [
            "users": [
                [
                    "localId": "u1", "email": "a@b.c", "emailVerified": true, "disabled": false,
                    "mfaInfo": [["mfaEnrollmentId": "e1"], ["mfaEnrollmentId": "e2"]],
                ],
                [
                    "localId": "u2", "phoneNumber": "+15555550100", "emailVerified": false, "disabled": true,
                    "mfaInfo": [],
                ],
            ]
        ]
        #expect(
            AdminListing.users.lines(for: users) == [
                "LOCAL ID  EMAIL  VERIFIED  DISABLED  MFA",
                "u1        a@b.c  yes       no        2",
                "u2        -      no        yes       0",
            ])
        let keys: JSONValue = [
            "keys": [
                ["keyId": "k1", "displayName": "ci", "scope": "project", "createdAt": "2026-11-21T10:00:00Z"],
                [
                    "keyId": "k2", "displayName": "ops", "scope": "tenant:t1", "createdAt": "2026-11-21T11:00:00Z",
                    "revokedAt": "2026-11-22T09:00:00Z",
                ],
            ]
        ]
        #expect(
            AdminListing.adminKeys.lines(for: keys) == [
                "KEY ID  DISPLAY NAME  SCOPE      CREATED               REVOKED",
                "k1      ci            project    2026-11-21T10:00:00Z  no",
                "k2      ops           tenant:t1  2026-11-21T11:00:00Z  2026-11-22T09:00:00Z",
            ])
        let events: JSONValue = [
            "events": [
                ["time": "2026-11-21T10:00:00Z", "actorKeyId": "k1", "method": "tenants.create", "target": "t-1"],
                ["time": "2026-11-21T10:01:00Z", "actorKeyId": "k1", "method": "users.delete"],
            ]
        ]
        #expect(
            AdminListing.auditEvents.lines(for: events) == [
                "TIME                  ACTOR  METHOD          TARGET",
                "2026-11-21T10:00:00Z  k1     tenants.create  t-1",
                "2026-11-21T10:01:00Z  k1     users.delete    -",
            ])
        #expect(AdminListing.users.lines(for: ["users": []]) == ["no users"])
        #expect(AdminListing.auditEvents.lines(for: [:]) == ["no audit events"])
    }

    @Test func prettyJSONIsIndentedByTwoSpaces() {
        let value: JSONValue = ["a": 1, "b": [true, nil, "x\"y"], "c": [:], "d": [], "e": ["f": 1.5]]
        #expect(
            JSONPrettyPrinter.format(value) == """
                {
                  "a": 1,
                  "b": [
                    true,
                    null,
                    "x\\"y"
                  ],
                  "c": {},
                  "d": [],
                  "e": {
                    "f": 1.5
                  }
                }
                """)
        #expect(JSONPrettyPrinter.format("text") == #""text""#)
    }
}
