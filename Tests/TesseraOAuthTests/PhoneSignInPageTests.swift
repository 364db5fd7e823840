import TesseraCore
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraTestSupport
import Testing

/// Phone sign-in in the login pages: the number, the code, and what the RPC refuses.
@Suite("Phone sign-in pages")
struct PhoneSignInPageTests {
    /// The phone-number page of a new flow of `client`.
    static func numberPage(_ browser: inout Browser, client: String) async throws -> HTTPResponse {
        let password = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
        let page = try await browser.submit(password, form: "phone-choice-form")
        #expect(page.status.code == 200 && Page(page).form("phone-number-form") != nil)
        return page
    }

    @Test("the number, the code, then the app's code; a new number makes an account")
    func signIn() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant()
            let client = try await harness.client(tenantID: tenant)
            var browser = harness.browser()
            let page = try await Self.numberPage(&browser, client: client)
            let number = LoginHarness.number()
            let spaced = number.prefix(2) + " " + number.dropFirst(2).prefix(3) + " " + number.dropFirst(5)
            let codePage = try await browser.submit(page, form: "phone-number-form", [("phoneNumber", String(spaced))])
            #expect(codePage.status.code == 200 && Page(codePage).contains(number))
            let wrong = try await browser.submit(codePage, form: "code-form", [("code", "000000")])
            #expect(wrong.status.code == 400 && Page(wrong).contains("code-error"))
            let done = try await browser.submit(
                codePage, form: "code-form", [("code", try harness.sms.lastCode(to: number))])
            let redirect = try ClientRedirect(done, to: LoginHarness.redirectURI)
            let grant = try SealedAuthorizationCode.open(
                try #require(redirect.query["code"]), keys: harness.core.services.codeKeys
            ).grant
            #expect(grant.provider == "phone")
            let users = try await harness.core.sql(
                "UPDATE users SET display_name = 'found' WHERE phone_number = $1 AND tenant_id = $2 RETURNING 1",
                [number, tenant])
            #expect(users == 1)
        }
    }

    @Test("bad numbers, a missing proof of work, a second factor's number: errors on the page, no sign-in")
    func refusals() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa()])
            let client = try await harness.client(tenantID: tenant)
            var browser = harness.browser()
            let page = try await Self.numberPage(&browser, client: client)
            let empty = try await browser.submit(page, form: "phone-number-form", [("phoneNumber", "")])
            #expect(empty.status.code == 400 && Page(empty).contains("phoneNumber-error"))
            let invalid = try await browser.submit(page, form: "phone-number-form", [("phoneNumber", "12")])
            #expect(invalid.status.code == 400 && Page(invalid).contains("phoneNumber-error"))
            let unproved = try await browser.submit(
                page, form: "phone-number-form", [("phoneNumber", LoginHarness.number())], provesWork: false)
            #expect(unproved.status.code == 400 && Page(unproved).contains("could not check your browser"))
            #expect(harness.sms.sent.isEmpty)

            // A user's second factor is no first factor: refused after the right code, as over JSON-RPC.
            let user = try await harness.user(tenantID: tenant)
            let number = LoginHarness.number()
            try await harness.enrollPhone(user.email, number: number, tenantID: tenant)
            let codePage = try await browser.submit(page, form: "phone-number-form", [("phoneNumber", number)])
            let refused = try await browser.submit(
                codePage, form: "code-form", [("code", try harness.sms.lastCode(to: number))])
            #expect(refused.status.code == 400 && Page(refused).contains("second factor"))
            #expect(refused.headers["Location"] == nil)
            // And back to e-mail and password.
            let back = try await browser.submit(codePage, form: "another-number-form")
            let password = try await browser.submit(back, form: "password-choice-form")
            #expect(Page(password).form("password-form") != nil)
        }
    }

    @Test("a tenant without phone sign-in offers none, and refuses the form")
    func notOffered() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["enablePhoneSignIn": false])
            let client = try await harness.client(tenantID: tenant)
            var browser = harness.browser()
            let password = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            #expect(Page(password).form("phone-choice-form") == nil)
            let flow = try #require(Page(password).form("password-form")?.hidden)
            let forced = try await browser.send(.post, "/oauth2/login/phone", form: flow + [("method", "phone")])
            #expect(forced.status.code == 400 && Page(forced).form("phone-number-form") == nil)
        }
    }
}
