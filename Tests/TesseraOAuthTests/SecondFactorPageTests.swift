import FoundationEssentials
import PhoneCodes
import TesseraCore
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraPostgres
import TesseraTestSupport
import Testing

/// The second-factor pages: TOTP, SMS (sent as the page is first shown, resend, wrong code), the choice among
/// factors, and SSO sessions that never passed a second factor.
@Suite("Second-factor pages")
struct SecondFactorPageTests {
    /// Signs in with the password on a new flow of `client`; returns the page that follows.
    static func passwordStep(
        _ browser: inout Browser, client: String, email: String, pkce: PKCEPair? = nil
    ) async throws -> HTTPResponse {
        let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try pkce ?? PKCEPair()))
        return try await browser.submit(
            page, form: "password-form", [("email", email), ("password", LoginHarness.password)])
    }

    /// The second factor recorded with the code behind a redirect.
    static func grant(_ harness: LoginHarness, _ response: HTTPResponse) async throws -> (String?, String?) {
        let code = try #require(try ClientRedirect(response, to: LoginHarness.redirectURI).query["code"])
        let grant = try SealedAuthorizationCode.open(code, keys: harness.core.services.codeKeys).grant
        return (grant.secondFactor, grant.secondFactorID)
    }

    @Test("TOTP: the code page asks for the app's code; a wrong code is shown, the right one issues a code")
    func totp() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa()])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            let secret = try await harness.enrollTOTP(user.email, tenantID: tenant)
            var browser = harness.browser()
            let page = try await Self.passwordStep(&browser, client: client, email: user.email)
            #expect(page.status.code == 200)
            let html = Page(page)
            #expect(html.form("code-form") != nil)
            #expect(html.form("resend-form") == nil)
            #expect(html.contains(#"autocomplete="one-time-code""#))
            #expect(html.contains(#"inputmode="numeric""#))
            #expect(html.contains(#"<label for="code">"#))
            let wrongCode = try harness.totp(secret) == "000000" ? "111111" : "000000"
            let wrong = try await browser.submit(page, form: "code-form", [("code", wrongCode)])
            #expect(wrong.status.code == 400)
            #expect(Page(wrong).text(of: "code-error") == "The code is not correct.")
            let done = try await browser.submit(wrong, form: "code-form", [("code", try harness.totp(secret))])
            let (factor, enrollment) = try await Self.grant(harness, done)
            #expect(factor == "totp")
            #expect(enrollment != nil)
            // The session passed a second factor: SSO skips it.
            let sso = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            #expect(sso.status.code == 302)
            #expect(try await Self.grant(harness, sso).0 == "totp")
        }
    }

    @Test("revoking the user's tokens ends a login flow that passed the password, in the same transaction")
    func revocationEndsTheFlow() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa()])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            let secret = try await harness.enrollTOTP(user.email, tenantID: tenant)
            var browser = harness.browser()
            let page = try await Self.passwordStep(&browser, client: client, email: user.email)
            #expect(Page(page).form("code-form") != nil)
            try await harness.core.services.usersAdmin.revokeTokens(
                tenantID: tenant, localID: user.userID,
                actor: AuditLog.Actor(
                    principal: AdminPrincipal(keyID: "login-test", scope: .project), method: "users.revokeTokens",
                    requestID: "r"))
            // Before, the flow kept the sealed password step and the right code still issued an authorization code.
            let after = try await browser.submit(page, form: "code-form", [("code", try harness.totp(secret))])
            #expect(after.status.code == 400)
            #expect(after.headers["Location"] == nil)
        }
    }

    @Test("SMS: the code is sent as the page is first shown, not again on reload; resend, wrong and right code")
    func sms() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa()])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            let number = LoginHarness.number()
            try await harness.enrollPhone(user.email, number: number, tenantID: tenant)
            let before = harness.sms.sent.count
            var browser = harness.browser()
            let submitted = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            let redirect = try await browser.send(
                .post, "/oauth2/login/password",
                form: try #require(Page(submitted).form("password-form")).hidden + [
                    ("email", user.email), ("password", LoginHarness.password),
                ])
            #expect(redirect.status.code == 303)
            #expect(harness.sms.sent.count == before)
            let page = try await browser.follow(redirect)
            #expect(harness.sms.sent.count == before + 1)
            #expect(Page(page).contains("+*******" + number.suffix(4)))
            #expect(Page(page).form("resend-form") != nil)
            _ = try await browser.follow(redirect)
            #expect(harness.sms.sent.count == before + 1)
            let first = try harness.sms.lastCode(to: number)
            let resent = try await browser.submit(page, form: "resend-form")
            #expect(harness.sms.sent.count == before + 2)
            let second = try harness.sms.lastCode(to: number)
            let wrongCode = second == "000000" ? "111111" : "000000"
            let wrong = try await browser.submit(resent, form: "code-form", [("code", wrongCode)])
            #expect(Page(wrong).text(of: "code-error") == "The code is not correct.")
            if first != second {
                let stale = try await browser.submit(wrong, form: "code-form", [("code", first)])
                #expect(stale.status.code == 400)
            }
            let done = try await browser.submit(wrong, form: "code-form", [("code", second)])
            #expect(try await Self.grant(harness, done).0 == "phone")
        }
    }

    @Test("SMS resends beyond the limit show the wait in words")
    func resendLimit() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa()])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            let number = LoginHarness.number()
            try await harness.enrollPhone(user.email, number: number, tenantID: tenant)
            var browser = harness.browser()
            var page = try await Self.passwordStep(&browser, client: client, email: user.email)
            for _ in 0..<4 { page = try await browser.submit(page, form: "resend-form") }
            #expect(page.status.code == 429)
            let message = try #require(Page(page).text(of: "form-error"))
            #expect(message.hasPrefix("Too many attempts. Try again in "))
            #expect(message.hasSuffix("minutes.") || message.hasSuffix("hour."))
        }
    }

    @Test("with two factors the user picks one by mfaEnrollmentId, and may go back to the choice")
    func choice() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa()])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            let number = LoginHarness.number()
            let tokens = try await harness.signIn(user.email, tenantID: tenant)
            try await harness.enrollPhone(user.email, number: number, tenantID: tenant, signedIn: tokens)
            let secret = try await harness.enrollTOTP(user.email, tenantID: tenant, signedIn: tokens)
            var browser = harness.browser()
            let sent = harness.sms.sent.count
            let choice = try await Self.passwordStep(&browser, client: client, email: user.email)
            let html = Page(choice)
            #expect(html.form("factor-form") != nil)
            #expect(html.contains(#"name="mfaEnrollmentId""#))
            #expect(html.contains(#"<label for="factor-1">"#))
            let ids = try await harness.core.database.withPool { pool in
                try await pool.query(
                    "SELECT enrollment_id, factor FROM mfa_enrollments WHERE user_id = $1", [user.userID]
                ).rows.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
            }
            let phoneID = try #require(ids.first { $0.1 == "phone" }?.0)
            let totpID = try #require(ids.first { $0.1 == "totp" }?.0)
            let unknown = try await browser.submit(choice, form: "factor-form", [("mfaEnrollmentId", "nope")])
            #expect(unknown.status.code == 400)
            let phonePage = try await browser.submit(choice, form: "factor-form", [("mfaEnrollmentId", phoneID)])
            #expect(harness.sms.sent.count == sent + 1)
            let back = try await browser.submit(phonePage, form: "another-factor-form")
            #expect(Page(back).form("factor-form") != nil)
            let totpPage = try await browser.submit(back, form: "factor-form", [("mfaEnrollmentId", totpID)])
            #expect(Page(totpPage).form("resend-form") == nil)
            let done = try await browser.submit(totpPage, form: "code-form", [("code", try harness.totp(secret))])
            #expect(try await Self.grant(harness, done).0 == "totp")
        }
    }

    @Test("SSO from a session without a second factor asks for it, then upgrades the session under a new id")
    func ssoUpgrade() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa()])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            var browser = harness.browser()
            let first = try await Self.passwordStep(&browser, client: client, email: user.email)
            #expect(try await Self.grant(harness, first).0 == nil)
            let firstAuthTime = try Self.authTime(harness, first)
            let oldSession = try #require(browser.cookies["__Host-tessera_session"])
            harness.core.clock.advance(by: 120)
            let secret = try await harness.enrollTOTP(user.email, tenantID: tenant)
            // Enrolling did not revoke the session, but it never passed a second factor.
            let silent = try await browser.authorize(
                AuthorizeRequestTests.valid(client, pkce: try PKCEPair()) + [("prompt", "none")])
            #expect(try ClientRedirect(silent, to: LoginHarness.redirectURI).query["error"] == "login_required")
            let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            #expect(Page(page).form("password-form") == nil)
            #expect(Page(page).form("code-form") != nil)
            let done = try await browser.submit(page, form: "code-form", [("code", try harness.totp(secret))])
            #expect(try await Self.grant(harness, done).0 == "totp")
            // The step-up keeps the first factor's time: before, it was stamped now, so an old session passed the
            // recency rule (API §4 rule 3) by adding a second factor.
            #expect(try Self.authTime(harness, done) == firstAuthTime)
            // A new session id for the new authentication level; the old id signs nobody in any more.
            let sessions = browser.setCookies.filter { $0.hasPrefix("__Host-tessera_session=") }
            #expect(sessions.count == 2)
            let newSession = try #require(browser.cookies["__Host-tessera_session"])
            #expect(newSession != oldSession)
            let sso = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            #expect(sso.status.code == 302)
            #expect(try await Self.grant(harness, sso).0 == "totp")
            var fixed = harness.browser()
            fixed.cookies["__Host-tessera_session"] = oldSession
            let withOld = try await fixed.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            #expect(Page(withOld).form("password-form") != nil)
        }
    }

    /// The `auth_time` a code behind a redirect carries.
    static func authTime(_ harness: LoginHarness, _ response: HTTPResponse) throws -> Date {
        let code = try #require(try ClientRedirect(response, to: LoginHarness.redirectURI).query["code"])
        return try SealedAuthorizationCode.open(code, keys: harness.core.services.codeKeys).grant.authTime
    }

    @Test("app verification disabled for testing: the pages reach test numbers only")
    func disabledForTesting() async throws {
        try await LoginHarness.run(appVerification: .disabledForTesting) { harness in
            let number = LoginHarness.number()
            let tenant = try await harness.tenant([
                "mfaConfig": LoginHarness.mfa("MANDATORY"), "testPhoneNumbers": [number: "123456"],
            ])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            var browser = harness.browser()
            let choice = try await Self.passwordStep(&browser, client: client, email: user.email)
            let refused = try await browser.submit(
                choice, form: "enroll-phone-form", [("phoneNumber", LoginHarness.number())])
            #expect(refused.status.code == 400)
            #expect(Page(refused).text(of: "form-error") == "SMS cannot be sent to this number from this server.")
            let codePage = try await browser.submit(refused, form: "enroll-phone-form", [("phoneNumber", number)])
            let done = try await browser.submit(codePage, form: "code-form", [("code", "123456")])
            #expect(try await Self.grant(harness, done).0 == "phone")
        }
    }
}
