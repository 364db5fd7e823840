import FoundationEssentials
import MultiFactor
import PhoneFactor
import PhoneSignIn
import PhoneTestSupport
import TesseraCore
import TesseraJSON
import TesseraTestSupport
import Testing

/// `accounts.sendVerificationCode` and `accounts.signInWithPhoneNumber` (API §3, §4 "Phone factor").
@Suite("Phone sign-in")
struct PhoneSignInTests {
    @Test("phone sign-in names the SMS factor by the id the plugin declares")
    func smsFactorID() {
        #expect(PhoneSignIn.smsFactorID == PhoneFactor.id)
    }

    @Test("a code signs up a new number, then signs in the same account; tokens say phone")
    func signUpThenSignIn() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let number = PhoneHarness.number()
            let first = try await phone.phoneSignIn(number, tenantID: tenant)
            #expect(first.isNewUser == true)
            #expect(first.phoneNumber == number)
            let message = try #require(phone.sms.sent(to: number).last)
            #expect(message.kind == .phoneSignIn)
            #expect(message.tenantId == tenant)
            #expect(message.languageCode == "en")
            let claims = try await phone.claims(first.idToken, tenantID: tenant)
            #expect(claims.signInProvider == "phone")
            #expect(claims.phoneNumber == number)
            let again = try await phone.phoneSignIn(number, tenantID: tenant)
            #expect(again.isNewUser == false)
            #expect(again.localId == first.localId)
            let user = try await phone.firstFactor.lookup(idToken: again.idToken, tenantID: tenant)
            #expect(user.providers == ["phone"])
            #expect(user.phoneNumber == number)
            #expect(user.lastLoginAt != nil)
        }
    }

    @Test("an account with the number (made by an admin, with a password) is signed in, and gains phone")
    func existingAccount() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let (email, tokens) = try await phone.verifiedUser(tenantID: tenant)
            let number = PhoneHarness.number()
            try await phone.core.sql("UPDATE users SET phone_number = $2 WHERE user_id = $1", [tokens.localId, number])
            let signedIn = try await phone.phoneSignIn(number, tenantID: tenant)
            #expect(signedIn.localId == tokens.localId)
            #expect(signedIn.isNewUser == false)
            let user = try await phone.firstFactor.lookup(idToken: signedIn.idToken, tenantID: tenant)
            #expect(user.providers == ["password", "phone"])
            #expect(user.email == email)
        }
    }

    @Test("a wrong code leaves the session open; the right one ends it")
    func wrongThenRight() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let number = PhoneHarness.number()
            let session = try await phone.send(number, tenantID: tenant)
            let code = try phone.lastCode(to: number)
            let wrong = code == "000000" ? "000001" : "000000"
            #expect(
                try await reason {
                    _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: wrong, tenantID: tenant)
                } == .invalidCode)
            _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: code, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: code, tenantID: tenant)
                } == .invalidSessionInfo)
        }
    }

    @Test("five wrong codes burn the session, with retryAfter; codes expire after 300 s")
    func attemptsAndExpiry() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let number = PhoneHarness.number()
            let session = try await phone.send(number, tenantID: tenant)
            let code = try phone.lastCode(to: number)
            let wrong = code == "999999" ? "999998" : "999999"
            for _ in 1...5 {
                #expect(
                    try await reason {
                        _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: wrong, tenantID: tenant)
                    } == .invalidCode)
            }
            let burned = try #require(
                try await authError {
                    _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: code, tenantID: tenant)
                })
            #expect(burned.reason == .tooManyAttemptsTryLater)
            #expect((1...300).contains(burned.retryAfter ?? 0))

            let fresh = try await phone.send(number, tenantID: tenant)
            let freshCode = try phone.lastCode(to: number)
            phone.clock.advance(by: 301)
            #expect(
                try await reason {
                    _ = try await phone.phoneSignIn.signIn(sessionInfo: fresh, code: freshCode, tenantID: tenant)
                } == .sessionExpired)
        }
    }

    @Test("missing, unknown and other tenants' sessions, and bad numbers")
    func badParams() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let other = try await phone.tenant()
            let number = PhoneHarness.number()
            let session = try await phone.send(number, tenantID: tenant)
            let code = try phone.lastCode(to: number)
            let signIn = phone.phoneSignIn
            #expect(
                try await reason { _ = try await signIn.signIn(sessionInfo: nil, code: code, tenantID: tenant) }
                    == .missingSessionInfo)
            #expect(
                try await reason { _ = try await signIn.signIn(sessionInfo: session, code: "", tenantID: tenant) }
                    == .missingCode)
            #expect(
                try await reason { _ = try await signIn.signIn(sessionInfo: "forged", code: code, tenantID: tenant) }
                    == .invalidSessionInfo)
            #expect(
                try await reason { _ = try await signIn.signIn(sessionInfo: session, code: code, tenantID: other) }
                    == .tenantIDMismatch)
            #expect(
                try await reason { _ = try await signIn.signIn(sessionInfo: session, code: code, tenantID: nil) }
                    == .tenantIDMismatch)
            for bad in [
                "", "15555550100", "+0155555501", "+1555", "+1 555 555 0100", "+1555555010012345", "+١٢٣٤٥٦٧٨٩",
            ] {
                let expected: AuthReason = bad.isEmpty ? .missingPhoneNumber : .invalidPhoneNumber
                #expect(try await reason { _ = try await phone.send(bad, tenantID: tenant) } == expected)
            }
            #expect(
                try await reason {
                    _ = try await phone.send(number, tenantID: "no-such-tenant")
                } == .tenantNotFound)
            #expect(phone.sms.sent(to: number).count == 1)
        }
    }

    @Test("phone sign-in switched off by the tenant: OPERATION_NOT_ALLOWED at both steps")
    func switchedOff() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let number = PhoneHarness.number()
            let session = try await phone.send(number, tenantID: tenant)
            let code = try phone.lastCode(to: number)
            try await phone.core.sql(
                "UPDATE tenants SET config = jsonb_set(config, '{enablePhoneSignIn}', 'false') WHERE tenant_id = $1",
                [tenant])
            phone.core.tenantChanged(tenant)
            #expect(try await reason { _ = try await phone.send(number, tenantID: tenant) } == .operationNotAllowed)
            #expect(
                try await reason {
                    _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: code, tenantID: tenant)
                } == .operationNotAllowed)
            #expect(phone.sms.sent(to: number).count == 1)
        }
    }

    @Test("a disabled account cannot sign in by phone")
    func disabledUser() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let number = PhoneHarness.number()
            let first = try await phone.phoneSignIn(number, tenantID: tenant)
            try await phone.core.sql("UPDATE users SET disabled = true WHERE user_id = $1", [first.localId])
            #expect(try await reason { _ = try await phone.phoneSignIn(number, tenantID: tenant) } == .userDisabled)
        }
    }

    @Test("UNSUPPORTED_FIRST_FACTOR: an MFA user's number is told so only with its code; a phone sign-in cannot enrol")
    func unsupportedFirstFactor() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant(["mfaConfig": PhoneHarness.smsMFA])
            let (_, tokens) = try await phone.verifiedUser(tenantID: tenant)
            let second = PhoneHarness.number()
            _ = try await phone.enroll(tokens.idToken, number: second, tenantID: tenant)
            // The enrolled number, and the account's own number, are an MFA user's numbers.
            let own = PhoneHarness.number()
            try await phone.core.sql("UPDATE users SET phone_number = $2 WHERE user_id = $1", [tokens.localId, own])
            for number in [second, own] {
                // Answered like any number (before, UNSUPPORTED_FIRST_FACTOR here told anyone which numbers are
                // second factors, before app verification and the send limits): a wrong code is INVALID_CODE,
                // and only the code the number received says what the number is.
                #expect(
                    try await reason { _ = try await phone.send(number, tenantID: tenant, app: nil) }
                        == .missingAppCredential)
                let session = try await phone.send(number, tenantID: tenant)
                let code = try phone.lastCode(to: number)
                let wrong = code == "000000" ? "111111" : "000000"
                #expect(
                    try await reason {
                        _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: wrong, tenantID: tenant)
                    } == .invalidCode)
                #expect(
                    try await reason {
                        _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: code, tenantID: tenant)
                    } == .unsupportedFirstFactor)
            }
            // A number that becomes an MFA user's between the send and the sign-in is refused at sign-in.
            let (_, late) = try await phone.verifiedUser(tenantID: tenant)
            let lateNumber = PhoneHarness.number()
            let session = try await phone.send(lateNumber, tenantID: tenant)
            let code = try phone.lastCode(to: lateNumber)
            _ = try await phone.enroll(late.idToken, number: lateNumber, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: code, tenantID: tenant)
                } == .unsupportedFirstFactor)

            // An account with a verified address that signed in by phone still cannot enrol.
            let (_, user) = try await phone.verifiedUser(tenantID: tenant)
            let userNumber = PhoneHarness.number()
            try await phone.core.sql(
                "UPDATE users SET phone_number = $2 WHERE user_id = $1", [user.localId, userNumber])
            let byPhone = try await phone.phoneSignIn(userNumber, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await phone.startEnrollment(
                        byPhone.idToken, number: PhoneHarness.number(), tenantID: tenant)
                } == .unsupportedFirstFactor)
            // A phone-only account too (it has no e-mail either, but the first factor is what it cannot change).
            let phoneOnly = try await phone.phoneSignIn(PhoneHarness.number(), tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await phone.startEnrollment(
                        phoneOnly.idToken, number: PhoneHarness.number(), tenantID: tenant)
                } == .unsupportedFirstFactor)
        }
    }

    @Test("a test number's fixed code allows 20 tries an hour over all its sessions")
    func testNumberTries() async throws {
        try await PhoneHarness.run { phone in
            let number = PhoneHarness.number()
            let tenant = try await phone.tenant(["testPhoneNumbers": [number: "424242"]])
            // Before, every new session gave five more guesses at the fixed code, without any limit.
            for _ in 0..<20 {
                let session = try await phone.send(number, tenantID: tenant)
                #expect(
                    try await reason {
                        _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: "000000", tenantID: tenant)
                    } == .invalidCode)
            }
            let session = try await phone.send(number, tenantID: tenant)
            let refused = try await authError {
                _ = try await phone.phoneSignIn.signIn(sessionInfo: session, code: "424242", tenantID: tenant)
            }
            #expect(refused?.reason == .tooManyAttemptsTryLater && refused?.retryAfter == 3600)
            phone.core.clock.advance(by: 3600)
            let later = try await phone.send(number, tenantID: tenant)
            _ = try await phone.phoneSignIn.signIn(sessionInfo: later, code: "424242", tenantID: tenant)
        }
    }

    @Test("MANDATORY: a phone sign-in gets tokens that ask for an enrolment")
    func mandatory() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant([
                "mfaConfig": ["state": "MANDATORY", "enabledProviders": ["PHONE_SMS"]]
            ])
            let tokens = try await phone.phoneSignIn(PhoneHarness.number(), tenantID: tenant)
            #expect(tokens.mfaEnrollmentRequired == true)
        }
    }

    @Test("two concurrent first sign-ins of one number make one account")
    func concurrentFirstSignIns() async throws {
        try await PhoneHarness.run { phone in
            let tenant = try await phone.tenant()
            let number = PhoneHarness.number()
            let first = try await phone.send(number, tenantID: tenant)
            let firstCode = try phone.lastCode(to: number)
            let second = try await phone.send(number, tenantID: tenant)
            let secondCode = try phone.lastCode(to: number)
            let signIn = phone.phoneSignIn
            async let a = signIn.signIn(sessionInfo: first, code: firstCode, tenantID: tenant)
            async let b = signIn.signIn(sessionInfo: second, code: secondCode, tenantID: tenant)
            let (resultA, resultB) = try await (a, b)
            #expect(resultA.localId == resultB.localId)
            #expect([resultA.isNewUser, resultB.isNewUser].filter { $0 == true }.count == 1)
        }
    }
}
