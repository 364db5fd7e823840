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
