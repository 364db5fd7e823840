import FoundationEssentials
import MultiFactor
import PhoneTestSupport
import TesseraCore
import TesseraJSON
import TesseraTestSupport
import Testing

/// The SMS second factor through the router (API §4 "Phone factor" and rules 2, 3, 6–8).
@Suite("SMS second factor")
struct SMSFactorTests {
    @Test(
        "enrol a number, then sign in with it: masked challenge, kinds, claims, full number for the owner",
        arguments: [false, true])
    func enrollAndSignIn(remote: Bool) async throws {
        try await PhoneHarness.run(remote: remote) { phone in
            let tenant = try await phone.tenant(["mfaConfig": PhoneHarness.smsMFA])
            let (email, tokens) = try await phone.verifiedUser(tenantID: tenant)
            let number = "+1555555\(String(UInt16.random(in: 1000...9999)))"
            let session = try await phone.startEnrollment(tokens.idToken, number: number, tenantID: tenant)
            #expect(phone.sms.sent(to: number).last?.kind == .mfaEnrollment)
            let enrolled = try await phone.finalizeEnrollment(
                tokens.idToken, sessionInfo: session, code: try phone.lastCode(to: number), tenantID: tenant)
            let enrollmentID = try #require(enrolled.mfaEnrollmentId)
            let owner = try await phone.firstFactor.lookup(idToken: enrolled.idToken, tenantID: tenant)
            #expect(owner.mfaInfo.first?.factorInfo["phoneInfo"] == .string(number))
            #expect(owner.mfaInfo.first?.displayName == "work phone")

            let challenge = try await phone.challenge(email, tenantID: tenant)
            let masked = "+*******" + String(number.suffix(4))
            #expect(challenge.mfaInfo.map { $0.factorInfo["phoneInfo"] } == [.string(masked)])
            let signInSession = try await phone.startSignIn(
                challenge.mfaPendingCredential, enrollmentID: enrollmentID, tenantID: tenant)
            let message = try #require(phone.sms.sent(to: number).last)
            #expect(message.kind == .mfaSignIn)
            let signedIn = try await phone.finishSignIn(
                challenge.mfaPendingCredential, enrollmentID: enrollmentID,
                info: ["sessionInfo": .string(signInSession), "code": .string(try phone.lastCode(to: number))],
                tenantID: tenant)
            let claims = try await phone.claims(signedIn.idToken, tenantID: tenant)
            #expect(claims.signInSecondFactor == "phone")
            #expect(claims.secondFactorIdentifier == enrollmentID)
            #expect(claims.signInProvider == "password")
        }
    }

    @Test(
        "finalize names the enrolment by its number, in full or masked; an ambiguous mask needs the id",
        arguments: [false, true])
    func namedByNumber(remote: Bool) async throws {
        try await PhoneHarness.run(remote: remote) { phone in
            let tenant = try await phone.tenant(["mfaConfig": PhoneHarness.smsMFA])
            let (email, tokens) = try await phone.verifiedUser(tenantID: tenant)
            let suffix = String(UInt16.random(in: 1000...9999))
            let first = "+1555501\(suffix)"
            let twin = "+1555502\(suffix)"
            let masked = "+*******\(suffix)"
            let firstID = try await phone.enroll(tokens.idToken, number: first, tenantID: tenant)
            for name in [first, masked] {
                let challenge = try await phone.challenge(email, tenantID: tenant)
                let session = try await phone.startSignIn(
                    challenge.mfaPendingCredential, enrollmentID: firstID, tenantID: tenant)
                let info: JSONObject = [
                    "sessionInfo": .string(session), "code": .string(try phone.lastCode(to: first)),
                    "phoneNumber": .string(name),
                ]
                let signedIn = try await phone.finishSignIn(
                    challenge.mfaPendingCredential, enrollmentID: nil, info: info, tenantID: tenant)
                #expect(try await phone.claims(signedIn.idToken, tenantID: tenant).secondFactorIdentifier == firstID)
            }

            // A second number with the same last four digits makes the mask ambiguous.
            _ = try await phone.enroll(tokens.idToken, number: twin, tenantID: tenant)
            let challenge = try await phone.challenge(email, tenantID: tenant)
            let session = try await phone.startSignIn(
                challenge.mfaPendingCredential, enrollmentID: firstID, tenantID: tenant)
            let code = try phone.lastCode(to: first)
            let credential = challenge.mfaPendingCredential
            let ambiguous: JSONObject = [
                "sessionInfo": .string(session), "code": .string(code), "phoneNumber": .string(masked),
            ]
            #expect(
                try await reason {
                    _ = try await phone.finishSignIn(credential, enrollmentID: nil, info: ambiguous, tenantID: tenant)
                } == .missingMFAEnrollmentID)
            // A number that names another enrolment than the id is refused.
            let mismatched: JSONObject = [
                "sessionInfo": .string(session), "code": .string(code), "phoneNumber": .string(twin),
            ]
            #expect(
                try await reason {
                    _ = try await phone.finishSignIn(
                        credential, enrollmentID: firstID, info: mismatched, tenantID: tenant)
                } == .invalidArgument)
            _ = try await phone.finishSignIn(
                credential, enrollmentID: firstID, info: ["sessionInfo": .string(session), "code": .string(code)],
                tenantID: tenant)
        }
    }

    @Test("SECOND_FACTOR_EXISTS at start, and at finalize for a number enrolled meanwhile", arguments: [false, true])
    func secondFactorExists(remote: Bool) async throws {
        try await PhoneHarness.run(remote: remote) { phone in
            let tenant = try await phone.tenant(["mfaConfig": PhoneHarness.smsMFA])
            let (_, tokens) = try await phone.verifiedUser(tenantID: tenant)
            let number = PhoneHarness.number()
            let one = try await phone.startEnrollment(tokens.idToken, number: number, tenantID: tenant)
            let oneCode = try phone.lastCode(to: number)
            let two = try await phone.startEnrollment(tokens.idToken, number: number, tenantID: tenant)
            let twoCode = try phone.lastCode(to: number)
            let enrolled = try await phone.finalizeEnrollment(
                tokens.idToken, sessionInfo: one, code: oneCode, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await phone.finalizeEnrollment(
                        enrolled.idToken, sessionInfo: two, code: twoCode, tenantID: tenant)
                } == .secondFactorExists)
            let sent = phone.sms.sent(to: number).count
            #expect(
                try await reason {
                    _ = try await phone.startEnrollment(enrolled.idToken, number: number, tenantID: tenant)
                } == .secondFactorExists)
            #expect(phone.sms.sent(to: number).count == sent)
            // Another user may enrol the same number.
            let (_, other) = try await phone.verifiedUser(tenantID: tenant)
            _ = try await phone.enroll(other.idToken, number: number, tenantID: tenant)
        }
    }

    @Test(
        "enrolment: a wrong code leaves the session open, a used one is INVALID_SESSION_INFO, 300 s expiry",
        arguments: [false, true])
    func enrollmentCodes(remote: Bool) async throws {
        try await PhoneHarness.run(remote: remote) { phone in
            let tenant = try await phone.tenant(["mfaConfig": PhoneHarness.smsMFA])
            let (_, tokens) = try await phone.verifiedUser(tenantID: tenant)
            let number = PhoneHarness.number()
            let session = try await phone.startEnrollment(tokens.idToken, number: number, tenantID: tenant)
            let code = try phone.lastCode(to: number)
            let wrong = code == "000000" ? "000001" : "000000"
            #expect(
                try await reason {
                    _ = try await phone.finalizeEnrollment(
                        tokens.idToken, sessionInfo: session, code: wrong, tenantID: tenant)
                } == .invalidCode)
            _ = try await phone.finalizeEnrollment(tokens.idToken, sessionInfo: session, code: code, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await phone.finalizeEnrollment(
                        tokens.idToken, sessionInfo: session, code: code, tenantID: tenant)
                } == .invalidSessionInfo)

            let (laterEmail, laterTokens) = try await phone.verifiedUser(tenantID: tenant)
            let later = PhoneHarness.number()
            let expiring = try await phone.startEnrollment(laterTokens.idToken, number: later, tenantID: tenant)
            let laterCode = try phone.lastCode(to: later)
            phone.clock.advance(by: 301)
            guard
                case .tokens(let fresh) = try await phone.firstFactor.signInWithPassword(
                    email: laterEmail, password: PhoneHarness.password, tenantID: tenant)
            else { throw Unexpected(description: "expected tokens") }
            #expect(
                try await reason {
                    _ = try await phone.finalizeEnrollment(
                        fresh.idToken, sessionInfo: expiring, code: laterCode, tenantID: tenant)
                } == .sessionExpired)
        }
    }

    @Test(
        "bad enrolment params: missing and malformed numbers, unknown members, missing code",
        arguments: [false, true])
    func badParams(remote: Bool) async throws {
        try await PhoneHarness.run(remote: remote) { phone in
            let tenant = try await phone.tenant(["mfaConfig": PhoneHarness.smsMFA])
            let (_, tokens) = try await phone.verifiedUser(tenantID: tenant)
            let router = phone.router
            let cases: [(JSONObject, AuthReason)] = [
                ([:], .missingPhoneNumber),
                (["phoneNumber": ""], .missingPhoneNumber),
                (["phoneNumber": "5555550100"], .invalidPhoneNumber),
                (["phoneNumber": 15_555_550_100], .invalidArgument),
                (["phoneNumber": "+15555550100", "extra": true], .invalidArgument),
                (["phoneNumber": "+15555550100"], .missingAppCredential),
                (["phoneNumber": "+15555550100", "appVerification": "token"], .invalidArgument),
            ]
            for (info, expected) in cases {
                let request = EnrollmentStartRequest(
                    idToken: tokens.idToken, tenantID: tenant, languageCode: nil, factor: "phone", info: info)
                #expect(try await reason { _ = try await router.startEnrollment(request) } == expected)
            }
            let number = PhoneHarness.number()
            let session = try await phone.startEnrollment(tokens.idToken, number: number, tenantID: tenant)
            let finalizeCases: [(JSONObject, AuthReason)] = [
                (["sessionInfo": .string(session)], .missingCode),
                (["code": "123456"], .missingSessionInfo),
                (
                    ["sessionInfo": .string(session), "code": "123456", "phoneNumber": .string(number)],
                    .invalidArgument
                ),
            ]
            for (info, expected) in finalizeCases {
                let request = EnrollmentFinalizeRequest(
                    idToken: tokens.idToken, tenantID: tenant, displayName: nil, factor: "phone", info: info)
                #expect(try await reason { _ = try await router.finalizeEnrollment(request) } == expected)
            }
        }
    }

    @Test("the SMS factor is usable only where PHONE_SMS is enabled", arguments: [false, true])
    func notEnabled(remote: Bool) async throws {
        try await PhoneHarness.run(remote: remote) { phone in
            let totpOnly: JSONValue = [
                "state": "ENABLED",
                "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 1]]],
            ]
            let tenant = try await phone.tenant(["mfaConfig": totpOnly])
            let (_, tokens) = try await phone.verifiedUser(tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await phone.startEnrollment(tokens.idToken, number: PhoneHarness.number(), tenantID: tenant)
                } == .operationNotAllowed)
        }
    }

    @Test("a test number enrols and signs in with its configured code, without SMS", arguments: [false, true])
    func testNumber(remote: Bool) async throws {
        try await PhoneHarness.run(remote: remote) { phone in
            let number = PhoneHarness.number()
            let tenant = try await phone.tenant([
                "mfaConfig": PhoneHarness.smsMFA, "testPhoneNumbers": [number: "424242"],
            ])
            let (email, tokens) = try await phone.verifiedUser(tenantID: tenant)
            let session = try await phone.startEnrollment(tokens.idToken, number: number, tenantID: tenant)
            let enrolled = try await phone.finalizeEnrollment(
                tokens.idToken, sessionInfo: session, code: "424242", tenantID: tenant)
            let challenge = try await phone.challenge(email, tenantID: tenant)
            let enrollmentID = try #require(enrolled.mfaEnrollmentId)
            let signInSession = try await phone.startSignIn(
                challenge.mfaPendingCredential, enrollmentID: enrollmentID, tenantID: tenant)
            _ = try await phone.finishSignIn(
                challenge.mfaPendingCredential, enrollmentID: enrollmentID,
                info: ["sessionInfo": .string(signInSession), "code": "424242"], tenantID: tenant)
            #expect(phone.sms.sent(to: number).isEmpty)
        }
    }
}
