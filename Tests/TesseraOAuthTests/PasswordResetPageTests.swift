import TesseraCore
import TesseraHTTP
import TesseraOAuth
import TesseraTestSupport
import Testing

/// Password reset in the login pages: from the password page's link to a sign-in with the new password.
@Suite("Password reset pages")
struct PasswordResetPageTests {
    @Test("forgot password → the mail's link → a new password → signing in with it; the link works once")
    func resetFromTheLoginPage() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant()
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            var browser = harness.browser()
            let signIn = AuthorizeRequestTests.valid(client, pkce: try PKCEPair())
            let page = try await browser.authorize(signIn)
            let forgotLink = try #require(Page(page).attribute("href", ofID: "forgot-password"))
            let forgot = try await browser.send(.get, forgotLink)
            #expect(forgot.status.code == 200 && Page(forgot).contains("forgot-form"))

            let empty = try await browser.submit(forgot, form: "forgot-form", [("email", " ")])
            #expect(empty.status.code == 400 && Page(empty).contains("email-error"))
            let unknown = try await browser.submit(forgot, form: "forgot-form", [("email", CoreHarness.email())])
            let sent = try await browser.submit(forgot, form: "forgot-form", [("email", user.email)])
            for answer in [unknown, sent] {
                #expect(answer.status.code == 200 && Page(answer).contains(#"id="reset-sent""#))
            }
            try await waitUntil { harness.core.mail.sent.contains { $0.to == user.email } }
            let mail = try #require(harness.core.mail.sent.last { $0.to == user.email })
            #expect(mail.kind == "password_reset" && mail.tenantId == tenant)
            let path = String(mail.link[try #require(mail.link.firstRange(of: "/reset-password")).lowerBound...])

            let form = try await browser.send(.get, path)
            #expect(form.status.code == 200 && form.headers["Cache-Control"] == "no-store")
            #expect(form.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
            let weak = try await browser.submit(form, form: "reset-form", [("newPassword", "short")])
            #expect(weak.status.code == 400 && Page(weak).contains("newPassword-error"))
            // Another browser (without this one's cookie) cannot post the form.
            var stranger = harness.browser()
            let forged = try await stranger.submit(form, form: "reset-form", [("newPassword", "a forged password")])
            #expect(forged.status.code == 403)
            try await harness.core.checkPassword(email: user.email, password: LoginHarness.password, tenantID: tenant)

            let newPassword = "a brand new password"
            let done = try await browser.submit(form, form: "reset-form", [("newPassword", newPassword)])
            #expect(done.status.code == 200 && Page(done).contains(#"id="reset-done""#))
            let again = try await browser.submit(form, form: "reset-form", [("newPassword", "yet another one")])
            #expect(again.status.code == 400)

            let fresh = try await browser.authorize(signIn)
            let old = try await browser.submit(
                fresh, form: "password-form", [("email", user.email), ("password", LoginHarness.password)])
            #expect(old.status.code == 401)
            let signedIn = try await browser.submit(
                fresh, form: "password-form", [("email", user.email), ("password", newPassword)])
            #expect(signedIn.status.code == 303)
            _ = try ClientRedirect(signedIn, to: LoginHarness.redirectURI)
        }
    }

    @Test("the forgot form needs the flow's CSRF token; the reset page needs a code")
    func badRequests() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            var browser = harness.browser()
            let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            let forgot = try await browser.send(
                .get, try #require(Page(page).attribute("href", ofID: "forgot-password")))
            let forged = try await browser.submit(
                forgot, form: "forgot-form", [("email", CoreHarness.email()), ("csrf", "forged")])
            #expect(forged.status.code == 403)
            #expect(try await browser.send(.get, "/oauth2/login/forgot?flow=unknown").status.code == 400)
            #expect(try await browser.send(.get, "/reset-password").status.code == 400)
            let unknownCode = try await browser.send(.get, "/reset-password?oobCode=made-up")
            let refused = try await browser.submit(
                unknownCode, form: "reset-form", [("newPassword", "a long enough password")])
            #expect(refused.status.code == 400 && Page(refused).contains("not valid"))
        }
    }
}
