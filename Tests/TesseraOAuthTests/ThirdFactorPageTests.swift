import FoundationEssentials
import Logging
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraTestSupport
import Testing

/// A factor the login pages have never heard of (``EmailCodeFactor``, registered only here, its pages read from
/// JSON) is offered, enrolled, asked for and named on the pages, and its `amr` reaches the tokens.
@Suite("A third factor on the login pages")
struct ThirdFactorPageTests {
    @Test("MANDATORY offers it beside TOTP and SMS; its enrolment page, resend and code complete the login")
    func enrolsThroughThePages() async throws {
        let mailbox = EmailCodeFactor.Mailbox()
        try await LoginHarness.run(extraFactors: [EmailCodeFactor(mailbox: mailbox)]) { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa("MANDATORY")])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            var browser = harness.browser()
            let pkce = try PKCEPair()
            let choice = try await SecondFactorPageTests.passwordStep(
                &browser, client: client, email: user.email, pkce: pkce)
            let html = Page(choice)
            #expect(html.form("enroll-totp-form") != nil)
            #expect(html.form("enroll-phone-form") != nil)
            let form = try #require(html.form("enroll-email-form"))
            #expect(form.action == "/oauth2/login/enroll")
            #expect(form.hidden.contains { $0 == ("factor", "email") })
            #expect(html.contains(#"<button id="enroll-email" name="enrollEmail" type="submit">"#))
            #expect(html.text(of: "enroll-email") == "Send a code by e-mail")
            #expect(html.contains(#"<label for="codeEmail">E-mail address</label>"#))
            #expect(html.contains(#"type="email" required autocomplete="email""#))

            let empty = try await browser.submit(choice, form: "enroll-email-form")
            #expect(empty.status.code == 400)
            #expect(Page(empty).text(of: "codeEmail-error") == "Enter your e-mail address.")

            let address = "codes-\(UInt32.random(in: 0 ... .max))@example.com"
            let page = try await browser.submit(empty, form: "enroll-email-form", [("codeEmail", " \(address) ")])
            #expect(page.status.code == 200)
            #expect(Page(page).text(of: "page-title") == "Confirm your e-mail address")
            #expect(Page(page).text(of: "instructions") == "Enter the 6-digit code we sent to \(address).")
            #expect(Page(page).contains(#"<label for="code">Code from the e-mail</label>"#))
            #expect(Page(page).form("resend-form") != nil)
            #expect(mailbox.codes(to: address).count == 1)
            let resent = try await browser.submit(page, form: "resend-form")
            let codes = mailbox.codes(to: address)
            #expect(codes.count == 2)
            let wrongCode = codes[1] == "000000" ? "111111" : "000000"
            let wrong = try await browser.submit(resent, form: "code-form", [("code", wrongCode)])
            #expect(Page(wrong).text(of: "code-error") == "The code is not correct.")
            let done = try await browser.submit(wrong, form: "code-form", [("code", codes[1])])
            #expect(try await SecondFactorPageTests.grant(harness, done).0 == "email")
            let stored = try await harness.core.sql(
                "SELECT 1 FROM mfa_enrollments WHERE user_id = $1 AND factor = 'email'", [user.userID])
            #expect(stored == 1)

            let amr = try await Self.redeemedAMR(harness, done, client: client, pkce: pkce)
            #expect(amr == ["pwd", "otp", "mfa"])
        }
    }

    @Test("sign-in: the choice names it, its code page sends once, names the masked address and resends")
    func signsInThroughThePages() async throws {
        let mailbox = EmailCodeFactor.Mailbox()
        try await LoginHarness.run(extraFactors: [EmailCodeFactor(mailbox: mailbox)]) { harness in
            let tenant = try await harness.tenant(["mfaConfig": LoginHarness.mfa()])
            let client = try await harness.client(tenantID: tenant)
            let user = try await harness.user(tenantID: tenant)
            let address = "codes-\(UInt32.random(in: 0 ... .max))@example.com"
            let tokens = try await harness.signIn(user.email, tenantID: tenant)
            let started = try await harness.router.startEnrollment(
                EnrollmentStartRequest(
                    idToken: tokens.idToken, tenantID: tenant, languageCode: nil, factor: "email",
                    info: ["email": .string(address)]))
            let sessionInfo = try #require(
                started.result["emailSessionInfo"]?.objectValue?["sessionInfo"]?.stringValue)
            let sent = try #require(mailbox.codes(to: address).last)
            let enrolled = try await harness.router.finalizeEnrollment(
                EnrollmentFinalizeRequest(
                    idToken: tokens.idToken, tenantID: tenant, displayName: "work mail", factor: "email",
                    info: ["sessionInfo": .string(sessionInfo), "code": .string(sent)]))
            let enrollmentID = try #require(enrolled.mfaEnrollmentId)
            _ = try await harness.enrollTOTP(user.email, tenantID: tenant, signedIn: tokens)

            var browser = harness.browser()
            let choice = try await SecondFactorPageTests.passwordStep(&browser, client: client, email: user.email)
            let masked = "c***@example.com"
            #expect(Page(choice).form("factor-form") != nil)
            #expect(Page(choice).contains("work mail (E-mail to \(masked))"))
            #expect(Page(choice).contains("phone app (Authenticator app)"))
            #expect(mailbox.codes(to: address).count == 1)
            let page = try await browser.submit(choice, form: "factor-form", [("mfaEnrollmentId", enrollmentID)])
            #expect(page.status.code == 200)
            #expect(mailbox.codes(to: address).count == 2)
            #expect(Page(page).text(of: "instructions") == "Enter the 6-digit code we sent to \(masked).")
            #expect(Page(page).form("resend-form") != nil)
            let resent = try await browser.submit(page, form: "resend-form")
            #expect(mailbox.codes(to: address).count == 3)
            let code = try #require(mailbox.codes(to: address).last)
            let done = try await browser.submit(resent, form: "code-form", [("code", code)])
            #expect(try await SecondFactorPageTests.grant(harness, done).0 == "email")
        }
    }

    /// The `amr` of the access token the code behind `response` is redeemed for, at a token endpoint over the
    /// harness's factors.
    static func redeemedAMR(
        _ harness: LoginHarness, _ response: HTTPResponse, client: String, pkce: PKCEPair
    ) async throws -> [String]? {
        let code = try #require(try ClientRedirect(response, to: LoginHarness.redirectURI).query["code"])
        let environment = OAuthEnvironment(
            services: harness.core.services, factors: harness.router.registry, logger: Logger(label: "login-test"))
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let form = URLEncodedForm(fields: [
            (name: "grant_type", value: "authorization_code"), (name: "code", value: code),
            (name: "redirect_uri", value: LoginHarness.redirectURI), (name: "code_verifier", value: pkce.verifier),
            (name: "client_id", value: client),
        ])
        let answer = await TokenEndpoint(environment: environment).respond(
            to: HTTPRequest(method: .post, target: "/oauth2/token", headers: headers, body: Array(form.encoded.utf8)))
        #expect(answer.status.code == 200)
        let token = try #require(try JSONValue(parsing: answer.body).objectValue?["access_token"]?.stringValue)
        let payload = try Base64URL.decode(token.split(separator: ".")[1])
        return try JSONValue(parsing: payload).objectValue?["amr"]?.arrayValue?.compactMap(\.stringValue)
    }
}
