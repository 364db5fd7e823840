import FoundationEssentials
import MultiFactor
import PhoneCodes
import PhoneSignIn
import PhoneTestSupport
import TesseraCore
import TesseraJSON
import TesseraTestSupport
import Testing

/// What every code send goes through (API §4 "Phone factor"): test numbers, app verification, regions, the send
/// limits, delivery and localization. Shown on phone sign-in; the SMS factor uses the same issuer.
@Suite("SMS send rules")
struct SendRulesTests {
    @Test("a test number gets no SMS, only its configured code works, and no send limit applies")
    func testNumbers() async throws {
        try await PhoneHarness.run { phone in
            let number = PhoneHarness.number()
            let tenant = try await phone.tenant(["testPhoneNumbers": [number: "123456"], "smsDailyQuota": 1])
            for _ in 1...7 { _ = try await phone.send(number, tenantID: tenant, client: "192.0.2.1") }
            let session = try await phone.send(number, tenantID: tenant)
            #expect(phone.sms.sent(to: number).isEmpty)
            #expect(
                try await reason {
                    _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: "654321", tenantID: tenant)
                } == .invalidCode)
            let tokens = try await phone.phoneSignIn.signIn(sessionInfo: session, code: "123456", tenantID: tenant)
            #expect(tokens.phoneNumber == number)
            // The quota of 1 was not touched by the test number: a real number still gets its one SMS.
            _ = try await phone.send(PhoneHarness.number(), tenantID: tenant)
        }
    }

    @Test("enforced app verification: missing, empty, malformed and mixed credentials")
    func enforcedAppVerification() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let number = PhoneHarness.number()
            let cases: [(JSONObject?, AuthReason)] = [
                (nil, .missingAppCredential),
                ([:], .missingAppCredential),
                (["recaptchaToken": ""], .invalidAppCredential),
                (["playIntegrityToken": ""], .invalidAppCredential),
                (["iosReceipt": "r", "iosSecret": ""], .invalidAppCredential),
                (["iosReceipt": "r"], .invalidArgument),
                (["iosSecret": "s"], .invalidArgument),
                (["recaptchaToken": "t", "playIntegrityToken": "p"], .invalidArgument),
                (["recaptchaToken": 7], .invalidArgument),
                (["safetyNetToken": "t"], .invalidArgument),
            ]
            for (app, expected) in cases {
                #expect(try await reason { _ = try await phone.send(number, tenantID: tenant, app: app) } == expected)
            }
            #expect(phone.sms.sent(to: number).isEmpty)
            for app: JSONObject in [
                ["recaptchaToken": "t"], ["iosReceipt": "r", "iosSecret": "s"], ["playIntegrityToken": "p"],
            ] {
                _ = try await phone.send(number, tenantID: tenant, app: app)
            }
            #expect(phone.sms.sent(to: number).count == 3)
        }
    }

    @Test("app verification disabled for testing: only test numbers work, without a credential")
    func disabledForTesting() async throws {
        try await PhoneHarness.run(appVerification: .disabledForTesting) { phone in
            let testNumber = PhoneHarness.number()
            let tenant = try await phone.tenant(["testPhoneNumbers": [testNumber: "111111"]])
            let real = PhoneHarness.number()
            #expect(try await reason { _ = try await phone.send(real, tenantID: tenant) } == .appNotVerified)
            #expect(try await reason { _ = try await phone.send(real, tenantID: tenant, app: nil) } == .appNotVerified)
            let session = try await phone.send(testNumber, tenantID: tenant, app: nil)
            _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: "111111", tenantID: tenant)
            #expect(phone.sms.sent.isEmpty)
        }
    }

    @Test("region policy: allowByDefault with a denied region, allowlistOnly, and the tenant's override")
    func regions() async throws {
        try await PhoneHarness.run { phone in
            let denyGB = try await phone.tenant(["smsRegionConfig": ["allowByDefault": ["disallowedRegions": ["GB"]]]])
            let onlyFR = try await phone.tenant(["smsRegionConfig": ["allowlistOnly": ["allowedRegions": ["FR"]]]])
            let british = "+4477009\(String(UInt32.random(in: 10000...99999)))"
            let french = "+3361234\(String(UInt32.random(in: 1000...9999)))"
            let american = PhoneHarness.number()
            let denied = try #require(try await authError { _ = try await phone.send(british, tenantID: denyGB) })
            #expect(denied.reason == .invalidPhoneNumber)
            #expect(denied.detail == "region not allowed")
            _ = try await phone.send(american, tenantID: denyGB)
            _ = try await phone.send(french, tenantID: onlyFR)
            #expect(try await reason { _ = try await phone.send(american, tenantID: onlyFR) } == .invalidPhoneNumber)
            #expect(
                try await reason { _ = try await phone.send("+80012345678", tenantID: onlyFR) } == .invalidPhoneNumber)
            #expect(phone.sms.sent(to: british).isEmpty)
        }
    }

    @Test("5 sends per number per sliding hour, with retryAfter; a refused send does not count")
    func perNumberLimit() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let number = PhoneHarness.number()
            for minute in 0..<5 {
                _ = try await phone.send(number, tenantID: tenant)
                if minute < 4 { phone.clock.advance(by: 600) }
            }
            // Sends at 0, 10, 20, 30 and 40 minutes; the first leaves the window at 60.
            let limited = try #require(try await authError { _ = try await phone.send(number, tenantID: tenant) })
            #expect(limited.reason == .tooManyAttemptsTryLater)
            #expect(limited.retryAfter == 1200)
            phone.clock.advance(by: 1199)
            #expect(try await reason { _ = try await phone.send(number, tenantID: tenant) } == .tooManyAttemptsTryLater)
            phone.clock.advance(by: 1)
            _ = try await phone.send(number, tenantID: tenant)
            #expect(phone.sms.sent(to: number).count == 6)
        }
    }

    @Test("50 sends per client per hour; an IPv6 client is counted by its /64")
    func perClientLimit() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let prefix =
                "2001:db8:\(String(UInt16.random(in: 1...0xfff), radix: 16)):\(String(UInt16.random(in: 1...0xfff), radix: 16))"
            for index in 0..<50 {
                _ = try await phone.send(PhoneHarness.number(), tenantID: tenant, client: "\(prefix)::\(index + 1)")
            }
            let limited = try #require(
                try await authError {
                    _ = try await phone.send(PhoneHarness.number(), tenantID: tenant, client: "\(prefix):0:0:0:ffff")
                })
            #expect(limited.reason == .tooManyAttemptsTryLater)
            #expect(limited.retryAfter == 3600)
            _ = try await phone.send(PhoneHarness.number(), tenantID: tenant, client: PhoneHarness.client())
        }
    }

    @Test("the tenant's daily quota: QUOTA_EXCEEDED until the next UTC day")
    func dailyQuota() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant(["smsDailyQuota": 2])
            let blocked = try await phone.tenant(["smsDailyQuota": 0])
            _ = try await phone.send(PhoneHarness.number(), tenantID: tenant)
            _ = try await phone.send(PhoneHarness.number(), tenantID: tenant)
            let exceeded = try #require(
                try await authError { _ = try await phone.send(PhoneHarness.number(), tenantID: tenant) })
            #expect(exceeded.reason == .quotaExceeded)
            let now = Int(phone.clock.now().timeIntervalSince1970)
            let midnight = (now / 86400 + 1) * 86400
            #expect(exceeded.retryAfter == midnight - now)
            #expect(
                try await reason { _ = try await phone.send(PhoneHarness.number(), tenantID: blocked) }
                    == .quotaExceeded)
            phone.clock.advance(by: Double(midnight - now))
            _ = try await phone.send(PhoneHarness.number(), tenantID: tenant)
        }
    }

    @Test("a failed delivery answers DELIVERY_FAILED and leaves no session")
    func deliveryFailure() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let number = PhoneHarness.number()
            phone.sms.setFailing(true)
            #expect(try await reason { _ = try await phone.send(number, tenantID: tenant) } == .deliveryFailed)
            phone.sms.setFailing(false)
            let sessions = try await phone.core.sql(
                "SELECT 1 FROM phone_sign_in_sessions WHERE phone_number = $1", [number])
            #expect(sessions == 0)
            _ = try await phone.phoneSignIn(number, tenantID: tenant)
        }
    }

    @Test("messages follow languageCode, with the tenant's name; unknown languages fall back to English")
    func localization() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant(["displayName": "Acme"])
            let number = PhoneHarness.number()
            let expectations: [(String?, String)] = [
                ("ja", "ja"), ("RU", "ru"), ("fr-CA", "fr"), ("xx", "en"), (nil, "en"),
            ]
            var bodies: Set<String> = []
            for (asked, used) in expectations {
                _ = try await phone.send(number, tenantID: tenant, languageCode: asked)
                let message = try #require(phone.sms.sent(to: number).last)
                #expect(message.languageCode == used)
                #expect(message.body.contains("Acme"))
                #expect(PhoneHarness.code(in: message.body) != nil)
                bodies.insert(message.body.replacing(try #require(PhoneHarness.code(in: message.body)), with: ""))
                phone.clock.advance(by: 3600)
            }
            #expect(bodies.count == 4)
        }
    }

    @Test("two servers on one database share the limits: of ten racing sends to one number, five go out")
    func twoServers() async throws {
        try await PhoneHarness.run { first in
            try await PhoneHarness.run { second in
                let tenant = try await first.tenant()
                let number = PhoneHarness.number()
                let outcomes = try await withThrowingTaskGroup(of: AuthReason?.self) { group in
                    for index in 0..<10 {
                        let server = index.isMultiple(of: 2) ? first : second
                        group.addTask { try await reason { _ = try await server.send(number, tenantID: tenant) } }
                    }
                    return try await group.reduce(into: [AuthReason?]()) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 == nil }.count == 5)
                #expect(outcomes.filter { $0 == .tooManyAttemptsTryLater }.count == 5)
                #expect(first.sms.sent(to: number).count + second.sms.sent(to: number).count == 5)
            }
        }
    }
}
