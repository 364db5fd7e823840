import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraTestSupport
import Testing

/// The enrolment pages `MANDATORY` demands before a code is issued.
@Suite("Enrolment pages")
struct EnrollmentPageTests {
    @Test("MANDATORY without an enrolment: TOTP with the QR code as inline SVG and the key in text, then a code")
    func totp() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa("MANDATORY")])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            var browser = harness.browser()
            let choice = try await SecondFactorPageTests.passwordStep(&browser, client: client, email: user.email)
            #expect(choice.status.code == 200)
            #expect(Page(choice).form("enroll-totp-form") != nil)
            #expect(Page(choice).form("enroll-phone-form") != nil)
            let page = try await browser.submit(choice, form: "enroll-totp-form")
            let html = Page(page)
            #expect(html.contains(#"<figure id="qr-code""#))
            #expect(html.contains("<svg"))
            #expect(!html.contains("<script"))
            let key = try #require(html.text(of: "manual-entry-key"))
            #expect(key.count == 32)
            #expect(html.text(of: "instructions")?.contains("authenticator app") == true)
            let secret = try Base32.decode(key)
            let flow = try #require(Page(page).form("code-form")?.hidden.first { $0.0 == "flow" }?.1)
            let reloaded = try await browser.send(.get, "/oauth2/login?flow=" + PercentEncoding.encode(flow))
            #expect(Page(reloaded).text(of: "manual-entry-key") == key)
            let wrong = try await browser.submit(page, form: "code-form", [("code", "12345")])
            #expect(Page(wrong).text(of: "code-error") == "The code is not correct.")
            let done = try await browser.submit(wrong, form: "code-form", [("code", try harness.totp(secret))])
            #expect(try await SecondFactorPageTests.grant(harness, done).0 == "totp")
            let enrolled = try await harness.core.sql(
                "SELECT 1 FROM mfa_enrollments WHERE user_id = $1 AND factor = 'totp'", [user.userID])
            #expect(enrolled == 1)
        }
    }

    @Test("with recovery codes enabled, the pages make a set after the first factor and confirm one of its codes")
    func recoveryCodesAfterTheFirstFactor() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant([
                "mfaConfig": [
                    "state": "MANDATORY",
                    "providerConfigs": [
                        ["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 1]],
                        ["state": "ENABLED", "recoveryCodeProviderConfig": [:]],
                    ],
                ]
            ])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            var browser = harness.browser()
            let choice = try await SecondFactorPageTests.passwordStep(&browser, client: client, email: user.email)
            // Recovery codes are never the one factor MANDATORY asks for.
            #expect(Page(choice).form("enroll-totp-form") != nil && Page(choice).form("enroll-recovery-form") == nil)
            let page = try await browser.submit(choice, form: "enroll-totp-form")
            let secret = try Base32.decode(try #require(Page(page).text(of: "manual-entry-key")))
            let codes = try await browser.submit(page, form: "code-form", [("code", try harness.totp(secret))])
            #expect(codes.status.code == 200 && Page(codes).text(of: "page-title") == "Save your recovery codes")
            let listed = Page(codes).html.split(separator: "<li><code>").dropFirst().map { $0.prefix(14) }
            #expect(listed.count == 10)
            let wrong = try await browser.submit(codes, form: "code-form", [("code", "0000-0000-0000")])
            #expect(wrong.status.code == 400 && Page(wrong).contains("code-error"))
            let done = try await browser.submit(codes, form: "code-form", [("code", String(listed[7]))])
            #expect(try await SecondFactorPageTests.grant(harness, done).0 == "recovery")
            let factors = try await harness.core.sql(
                "SELECT factor FROM mfa_enrollments WHERE user_id = $1", [user.userID])
            #expect(factors == 2)
        }
    }

    @Test("MANDATORY via phone: a bad number is shown next to the field; the SMS code enrols and issues a code")
    func phone() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa("MANDATORY")])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            var browser = harness.browser()
            let choice = try await SecondFactorPageTests.passwordStep(&browser, client: client, email: user.email)
            let bad = try await browser.submit(choice, form: "enroll-phone-form", [("phoneNumber", "12345")])
            #expect(bad.status.code == 400)
            #expect(Page(bad).text(of: "phoneNumber-error")?.contains("international format") == true)
            #expect(Page(bad).contains(#"aria-describedby="phoneNumber-hint phoneNumber-error""#))
            let number = LoginHarness.number()
            let spaced = "+1 555 " + number.dropFirst(5)
            let page = try await browser.submit(bad, form: "enroll-phone-form", [("phoneNumber", spaced)])
            #expect(Page(page).form("resend-form") != nil)
            let resent = try await browser.submit(page, form: "resend-form")
            let second = try harness.sms.lastCode(to: number)
            #expect(harness.sms.sent.filter { $0.to == number }.count == 2)
            let done = try await browser.submit(resent, form: "code-form", [("code", second)])
            #expect(try await SecondFactorPageTests.grant(harness, done).0 == "phone")
        }
    }

    @Test("a code to a typed number needs the page's proof of work, bound to the number; a browser gets 10 an hour")
    func proofOfWorkAndBrowserLimit() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa("MANDATORY")])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            var browser = harness.browser()
            let choice = try await SecondFactorPageTests.passwordStep(&browser, client: client, email: user.email)
            let form = try #require(Page(choice).form("enroll-phone-form"))
            let proof = try #require(form.proofOfWork)
            #expect(proof.bits == 16 && proof.fields == ["phoneNumber"])
            #expect(Page(choice).contains(#"<script src="/oauth2/login.js" defer></script>"#))
            // Before, the page sent to whatever number a script typed, vouching for app verification itself.
            let number = LoginHarness.number()
            let without = try await browser.submit(
                choice, form: "enroll-phone-form", [("phoneNumber", number)], provesWork: false)
            #expect(without.status.code == 400)
            #expect(Page(without).text(of: "form-error")?.contains("Allow its script to run") == true)
            // A proof made for another number does not send to this one.
            let other = LoginHarness.number()
            let foreign = try ProofOfWork.solve(challenge: proof.challenge, values: [other], bits: proof.bits)
            let misused = try await browser.submit(
                choice, form: "enroll-phone-form", [("phoneNumber", number), ("pow-nonce", foreign)],
                provesWork: false)
            #expect(misused.status.code == 400)
            #expect(harness.sms.sent.filter { $0.to == number || $0.to == other }.isEmpty)
            // Proven, it sends: ten new numbers from one browser, over as many flows; the eleventh is refused.
            let page = try await browser.submit(choice, form: "enroll-phone-form", [("phoneNumber", number)])
            #expect(Page(page).form("code-form") != nil)
            var last = page
            for _ in 1..<10 {
                let next = try await SecondFactorPageTests.passwordStep(&browser, client: client, email: user.email)
                last = try await browser.submit(
                    next, form: "enroll-phone-form", [("phoneNumber", LoginHarness.number())])
                #expect(Page(last).form("code-form") != nil)
            }
            let eleventh = try await SecondFactorPageTests.passwordStep(&browser, client: client, email: user.email)
            let refusedNumber = LoginHarness.number()
            let refused = try await browser.submit(
                eleventh, form: "enroll-phone-form", [("phoneNumber", refusedNumber)])
            #expect(refused.status.code == 429)
            #expect(Page(refused).text(of: "form-error") == "Too many attempts. Try again in 1 hour.")
            #expect(harness.sms.sent.filter { $0.to == refusedNumber }.isEmpty)
            // Another browser is not held back.
            var secondBrowser = harness.browser()
            let fresh = try await SecondFactorPageTests.passwordStep(&secondBrowser, client: client, email: user.email)
            let elsewhere = try await secondBrowser.submit(
                fresh, form: "enroll-phone-form", [("phoneNumber", refusedNumber)])
            #expect(Page(elsewhere).form("code-form") != nil)
        }
    }

    @Test("a flow stored by an older server at a retired step (enroll_totp) restarts at the password step")
    func retiredStep() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa("MANDATORY")])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            var browser = harness.browser()
            let choice = try await SecondFactorPageTests.passwordStep(&browser, client: client, email: user.email)
            let page = try await browser.submit(choice, form: "enroll-totp-form")
            let flow = try #require(Page(page).form("code-form")?.hidden.first { $0.0 == "flow" }?.1)
            _ = try await harness.core.sql(
                "UPDATE oauth_login_flows SET step = 'enroll_totp' WHERE flow_hash = $1", [try SecretDigest.of(flow)])
            let reloaded = try await browser.send(.get, "/oauth2/login?flow=" + PercentEncoding.encode(flow))
            #expect(reloaded.status.code == 200)
            #expect(Page(reloaded).form("password-form") != nil)
            let code = try await browser.submit(page, form: "code-form", [("code", "123456")])
            #expect(Page(code).form("password-form") != nil)
        }
    }

    @Test("MANDATORY with an unverified e-mail cannot enrol: the page says why")
    func unverified() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa("MANDATORY")])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            try await harness.core.sql("UPDATE users SET email_verified = false WHERE user_id = $1", [user.userID])
            var browser = harness.browser()
            let choice = try await SecondFactorPageTests.passwordStep(&browser, client: client, email: user.email)
            let refused = try await browser.submit(choice, form: "enroll-totp-form")
            #expect(refused.status.code == 403)
            #expect(Page(refused).text(of: "form-error")?.hasPrefix("Verify your e-mail address") == true)
            #expect(refused.headers["Location"] == nil)
        }
    }
}
