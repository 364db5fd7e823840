import TesseraCore
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraTestSupport
import Testing

/// The login pages in every language: chosen by `ui_locales`, then `Accept-Language`, then the tenant's default;
/// `<html lang>` set; no text of any page left untranslated.
@Suite("Page languages", .serialized)
struct LanguageTests {
    @Test(arguments: [Language.ja, .ru, .fr])
    func everyPageIsWrittenInTheLanguage(_ language: Language) async throws {
        TextCatalogue.shared.recordMisses()
        try await LoginHarness.run { harness in
            let mandatory = try await harness.tenant(["mfaConfig": LoginHarness.mfa("MANDATORY")])
            let client = try await harness.client(tenantID: mandatory)
            let user = try await harness.user(tenantID: mandatory)
            var browser = harness.browser()
            var pages: [HTTPResponse] = []
            let start = AuthorizeRequestTests.valid(client, pkce: try PKCEPair()) + [("ui_locales", "xx \(language)")]
            let password = try await browser.authorize(start)
            pages.append(password)
            pages.append(
                try await browser.submit(
                    password, form: "password-form", [("email", user.email), ("password", "wrong password")]))
            pages.append(try await browser.submit(password, form: "password-form", [("email", ""), ("password", "")]))
            let forgot = try await browser.send(
                .get, try #require(Page(password).attribute("href", ofID: "forgot-password")))
            pages.append(forgot)
            pages.append(try await browser.submit(forgot, form: "forgot-form", [("email", " ")]))
            pages.append(try await browser.submit(forgot, form: "forgot-form", [("email", "not an address")]))
            pages.append(try await browser.submit(forgot, form: "forgot-form", [("email", CoreHarness.email())]))
            // Phone sign-in: the number, its errors, the code page and its errors, and back.
            var phone = harness.browser()
            let phoneStart = try await phone.authorize(start)
            let number = try await phone.submit(phoneStart, form: "phone-choice-form")
            pages.append(number)
            pages.append(try await phone.submit(number, form: "phone-number-form", [("phoneNumber", "")]))
            pages.append(try await phone.submit(number, form: "phone-number-form", [("phoneNumber", "+1")]))
            let phoneCode = try await phone.submit(
                number, form: "phone-number-form", [("phoneNumber", LoginHarness.number())])
            pages.append(phoneCode)
            pages.append(try await phone.submit(phoneCode, form: "code-form", [("code", "000000")]))
            pages.append(try await phone.submit(phoneCode, form: "code-form", [("code", "")]))
            pages.append(try await phone.submit(phoneCode, form: "another-number-form"))
            let reset = try await browser.send(.get, "/reset-password?oobCode=made-up")
            pages.append(reset)
            pages.append(try await browser.submit(reset, form: "reset-form", [("newPassword", "")]))
            pages.append(try await browser.submit(reset, form: "reset-form", [("newPassword", "long enough password")]))
            // MANDATORY: the choice of a factor to enrol, then TOTP's enrolment page and its errors.
            let choose = try await browser.submit(
                password, form: "password-form", [("email", user.email), ("password", LoginHarness.password)])
            pages.append(choose)
            pages.append(try await browser.submit(choose, form: "enroll-phone-form", [("phoneNumber", "")]))
            let totp = try await browser.submit(choose, form: "enroll-totp-form")
            pages.append(totp)
            pages.append(try await browser.submit(totp, form: "code-form", [("code", "")]))
            pages.append(try await browser.submit(totp, form: "code-form", [("code", "000000")]))
            // Second factors: a user with TOTP and SMS chooses, then gets the code pages.
            let enrolled = try await harness.user(tenantID: mandatory)
            let signedIn = try await harness.signIn(enrolled.email, tenantID: mandatory)
            _ = try await harness.enrollTOTP(enrolled.email, tenantID: mandatory, signedIn: signedIn)
            try await harness.enrollPhone(
                enrolled.email, number: LoginHarness.number(), tenantID: mandatory, signedIn: signedIn)
            var second = harness.browser()
            let again = try await second.authorize(start)
            let factors = try await second.submit(
                again, form: "password-form", [("email", enrolled.email), ("password", LoginHarness.password)])
            pages.append(factors)
            let code = try await second.submit(factors, form: "factor-form", [("mfaEnrollmentId", "unknown")])
            pages.append(code)
            // Error pages: a foreign form, an unknown flow, a bad request; and sign-out.
            pages.append(try await second.submit(password, form: "password-form", [("email", "a@b.c")]))
            pages.append(try await second.send(.get, "/oauth2/login?flow=unknown"))
            pages.append(try await second.authorize([("client_id", "unknown")]))
            pages.append(try await second.send(.get, "/oauth2/logout?client_id=\(client)"))
            pages.append(try await second.send(.get, "/oauth2/logout?client_id=unknown"))
            for page in pages {
                #expect(Page(page).contains(#"<html lang="\#(language.rawValue)">"#))
            }
        }
        #expect(TextCatalogue.shared.misses.sorted() == [])
    }

    /// The language cookie is a session cookie: set when the choice differs from the cookie the browser sent, not
    /// again on every authorization (the native-app cycle's SSO authorizations, each the same language).
    @Test func theLanguageCookieIsSetWhenTheChoiceChanges() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            var browser = harness.browser()
            let start = AuthorizeRequestTests.valid(client, pkce: try PKCEPair())
            func languageCookies(_ response: HTTPResponse) -> [String] {
                response.headers.values(of: "Set-Cookie").filter { $0.contains("tessera_lang=") }
            }
            func authorize(_ language: String) async throws -> HTTPResponse {
                let parameters = start + [("ui_locales", language)]
                let query = URLEncodedForm(fields: parameters.map { (name: $0.0, value: $0.1) }).encoded
                return try await browser.send(.get, "/oauth2/authorize?" + query)
            }
            let first = try await authorize("fr")
            #expect(first.status.code == 303)
            #expect(languageCookies(first).count == 1)
            #expect(languageCookies(first).first?.contains("tessera_lang=fr;") == true)
            #expect(languageCookies(try await authorize("fr")) == [])
            #expect(Page(try await browser.follow(try await authorize("fr"))).contains(#"<html lang="fr">"#))
            let other = try await authorize("ja")
            #expect(languageCookies(other).first?.contains("tessera_lang=ja;") == true)
            #expect(Page(try await browser.follow(other)).contains(#"<html lang="ja">"#))
        }
    }

    @Test("ui_locales, then Accept-Language, then the tenant's default, then English")
    func theOrderOfChoice() {
        #expect(Language.negotiate(uiLocales: "de ru-RU ja", acceptLanguage: "fr", fallback: .ja) == .ru)
        #expect(Language.negotiate(uiLocales: "de", acceptLanguage: "de, fr;q=0.5, ja;q=0.8", fallback: .ru) == .ja)
        #expect(Language.negotiate(uiLocales: nil, acceptLanguage: "ja;q=0, de", fallback: .ru) == .ru)
        #expect(Language.negotiate(uiLocales: nil, acceptLanguage: nil, fallback: nil) == .en)
        #expect(Language.negotiate(uiLocales: "", acceptLanguage: "FR-ca", fallback: nil) == .fr)
    }
}
