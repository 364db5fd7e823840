import TesseraHTTP
import TesseraTestSupport
import Testing

@testable import TesseraOAuth

/// The headers and cookies every response of the login pages carries.
@Suite("Login page headers and cookies")
struct SecurityHeaderTests {
    static func expectProtected(_ response: HTTPResponse, formTarget: String? = nil) {
        let policy = response.headers["Content-Security-Policy"] ?? ""
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("style-src 'self'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(policy.contains("base-uri 'none'"))
        // The one script is the pages' own file (login.js, the proof of work of the enrolment forms): never inline.
        #expect(policy.contains("script-src 'self';"))
        #expect(!policy.contains("unsafe-inline"))
        if let formTarget { #expect(policy.contains("form-action 'self' \(formTarget);")) }
        #expect(response.headers["X-Frame-Options"] == "DENY")
        #expect(response.headers["Referrer-Policy"] == "no-referrer")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
    }

    @Test("pages, redirects, error pages and the stylesheet carry CSP, XFO, no-referrer, no-store, nosniff")
    func headers() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            var browser = harness.browser()
            let pkce = try PKCEPair()
            let port = "http://127.0.0.1:50123/callback"
            let first = try await browser.send(
                .get,
                "/oauth2/authorize?"
                    + URLEncodedForm(
                        fields: AuthorizeRequestTests.valid(client, pkce: pkce, redirectURI: port).map {
                            (name: $0.0, value: $0.1)
                        }
                    ).encoded)
            #expect(first.status.code == 303)
            Self.expectProtected(first)
            let page = try await browser.follow(first)
            Self.expectProtected(page, formTarget: "http://127.0.0.1:50123")
            let html = Page(page)
            #expect(html.contains(#"<html lang="en">"#))
            #expect(html.contains(#"<label for="email">"#))
            #expect(html.contains(#"<label for="password">"#))
            #expect(html.contains(#"autocomplete="username""#))
            #expect(html.contains(#"autocomplete="current-password""#))
            #expect(html.contains(#"<h1"#))
            #expect(!html.contains("<script"))
            #expect(!html.contains("style="))
            let done = try await browser.submit(
                page, form: "password-form", [("email", user.email), ("password", LoginHarness.password)])
            Self.expectProtected(done)
            #expect(done.headers["Location"]?.hasPrefix(port + "?code=") == true)
            Self.expectProtected(try await browser.authorize([("client_id", "nope")]))
            let css = try await browser.send(.get, "/oauth2/login.css")
            #expect(css.headers["Content-Type"] == "text/css; charset=utf-8")
            #expect(String(decoding: css.body, as: UTF8.self).contains(":focus-visible"))
            Self.expectProtected(css)
        }
    }

    @Test("https issuer: __Host- cookies, Secure, HttpOnly, SameSite=Lax, Path=/")
    func secureCookies() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            var browser = harness.browser()
            let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            _ = try await browser.submit(
                page, form: "password-form", [("email", user.email), ("password", LoginHarness.password)])
            let browserCookie = try #require(browser.setCookies.first { $0.hasPrefix("__Host-tessera_browser=") })
            let sessionCookie = try #require(browser.setCookies.first { $0.hasPrefix("__Host-tessera_session=") })
            for cookie in [browserCookie, sessionCookie] {
                #expect(cookie.contains("; Path=/"))
                #expect(cookie.contains("; Secure"))
                #expect(cookie.contains("; HttpOnly"))
                #expect(cookie.contains("; SameSite=Lax"))
                #expect(!cookie.contains("Domain="))
            }
            #expect(sessionCookie.contains("Max-Age=43200"))
        }
    }

    @Test("http issuer: plain names, no Secure")
    func plainCookies() async throws {
        try await LoginHarness.run(issuer: "http://127.0.0.1:8080") { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            var browser = harness.browser()
            let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            let done = try await browser.submit(
                page, form: "password-form", [("email", user.email), ("password", LoginHarness.password)])
            #expect(try ClientRedirect(done, to: LoginHarness.redirectURI).query["iss"] == "http://127.0.0.1:8080")
            let session = try #require(browser.setCookies.first { $0.hasPrefix("tessera_session=") })
            #expect(!session.contains("Secure"))
            #expect(session.contains("HttpOnly"))
            #expect(browser.setCookies.contains { $0.hasPrefix("tessera_browser=") })
        }
    }

    @Test("form-action names the redirect target: loopback origin, https origin, private-use scheme")
    func formAction() {
        #expect(LoginResponse.formActionSource("http://127.0.0.1:5000/cb") == "http://127.0.0.1:5000")
        #expect(LoginResponse.formActionSource("http://[::1]:5000/cb?x=1") == "http://[::1]:5000")
        #expect(LoginResponse.formActionSource("https://app.example.com/cb") == "https://app.example.com")
        #expect(LoginResponse.formActionSource("com.example.app:/oauth2redirect") == "com.example.app:")
        #expect(LoginResponse.formActionSource("https://a;b/cb") == nil)
    }
}
