import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraPostgres
import TesseraTestSupport
import Testing

@testable import TesseraOAuth

/// The password step, the code it ends with, CSRF, flows and SSO.
@Suite("Password login and SSO")
struct PasswordLoginTests {
    @Test("e-mail and password end in a redirect with code, state and iss; the code stands for the grant")
    func signIn() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            let pkce = try PKCEPair()
            var browser = harness.browser()
            var parameters = AuthorizeRequestTests.valid(client, pkce: pkce)
            parameters += [("nonce", "n-0S6"), ("login_hint", user.email)]
            let page = try await browser.authorize(parameters)
            #expect(page.status.code == 200)
            #expect(Page(page).contains(#"value="\#(user.email)""#))
            let done = try await browser.submit(
                page, form: "password-form", [("email", user.email), ("password", LoginHarness.password)])
            #expect(done.status.code == 303)
            let redirect = try ClientRedirect(done, to: LoginHarness.redirectURI)
            let code = try #require(redirect.query["code"])
            #expect(redirect.query["state"] == "st&te 1")
            #expect(redirect.query["iss"] == CoreHarness.issuer)
            let sealed = try SealedAuthorizationCode.open(code, keys: harness.core.services.codeKeys)
            let grant = sealed.grant
            let stored = [
                [
                    grant.userID,
                    sealed.redirectURIDigest == (try Digest.sha256(LoginHarness.redirectURI))
                        ? LoginHarness.redirectURI : "another URI", grant.codeChallenge, grant.scope,
                    grant.nonce ?? "-",
                    grant.provider, grant.secondFactor ?? "-",
                ]
            ]
            #expect(
                stored == [
                    [user.userID, LoginHarness.redirectURI, pkce.challenge, "openid email", "n-0S6", "password", "-"]
                ])
        }
    }

    @Test("a wrong password and an unknown e-mail show the same error next to the field, and no code")
    func wrongCredentials() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            var browser = harness.browser()
            let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            let wrong = try await browser.submit(
                page, form: "password-form", [("email", user.email), ("password", "not the password")])
            let unknown = try await browser.submit(
                page, form: "password-form",
                [("email", CoreHarness.email("nobody")), ("password", LoginHarness.password)])
            for response in [wrong, unknown] {
                #expect(response.status.code == 401)
                #expect(response.headers["Location"] == nil)
                let html = Page(response)
                #expect(html.text(of: "password-error") == "The e-mail address or the password is not correct.")
                #expect(html.contains(#"aria-describedby="password-error""#))
                #expect(html.contains(#"role="alert""#))
                #expect(html.form("password-form") != nil)
            }
            let empty = try await browser.submit(page, form: "password-form", [("email", ""), ("password", "")])
            #expect(empty.status.code == 400)
            #expect(Page(empty).text(of: "email-error") == "Enter your e-mail address.")
            let right = try await browser.submit(
                wrong, form: "password-form", [("email", user.email), ("password", LoginHarness.password)])
            #expect(right.headers["Location"]?.contains("code=") == true)
        }
    }

    @Test("too many wrong passwords show the wait in words")
    func throttled() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            var browser = harness.browser()
            var page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            for _ in 0..<11 {
                page = try await browser.submit(
                    page, form: "password-form", [("email", user.email), ("password", "not the password")])
            }
            #expect(page.status.code == 429)
            #expect(Page(page).text(of: "form-error")?.hasPrefix("Too many attempts. Try again in ") == true)
            #expect(Page(page).text(of: "form-error")?.hasSuffix("minutes.") == true)
        }
    }

    @Test("a missing or wrong CSRF token, or another browser, gets 403 and changes nothing")
    func csrf() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            var browser = harness.browser()
            let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            let form = try #require(Page(page).form("password-form"))
            let flow = try #require(form.hidden.first { $0.0 == "flow" }?.1)
            let credentials = [("email", user.email), ("password", LoginHarness.password)]
            let missing = try await browser.send(.post, form.action, form: [("flow", flow)] + credentials)
            let wrong = try await browser.send(
                .post, form.action, form: [("flow", flow), ("csrf", "AAAA")] + credentials)
            var other = harness.browser()
            let foreign = try await other.send(.post, form.action, form: form.hidden + credentials)
            _ = try await other.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            let otherCookie = try await other.send(.post, form.action, form: form.hidden + credentials)
            for response in [missing, wrong, foreign, otherCookie] {
                #expect(response.status.code == 403)
                #expect(response.headers["Location"] == nil)
            }
            let step = try await harness.core.sql(
                "SELECT 1 FROM oauth_login_flows WHERE flow_hash = $1 AND step = 'password' AND user_id IS NULL",
                [try SecretDigest.of(flow)])
            #expect(step == 1)
            let done = try await browser.submit(page, form: "password-form", credentials)
            #expect(done.headers["Location"]?.contains("code=") == true)
        }
    }

    @Test("a flow is single use and expires after 10 minutes")
    func flowLifetime() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            let credentials = [("email", user.email), ("password", LoginHarness.password)]
            var browser = harness.browser()
            let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            _ = try await browser.submit(page, form: "password-form", credentials)
            let again = try await browser.submit(page, form: "password-form", credentials)
            #expect(again.status.code == 400)
            #expect(Page(again).text(of: "error-message")?.contains("already complete") == true)

            var late = harness.browser()
            let latePage = try await late.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            harness.clock.advance(by: 601)
            let expired = try await late.submit(latePage, form: "password-form", credentials)
            #expect(expired.status.code == 400)
            #expect(Page(expired).text(of: "error-message")?.contains("expired") == true)
            let location = try #require(latePage.headers["Location"] ?? Optional("/oauth2/login?flow=x"))
            #expect(try await late.send(.get, location).status.code == 400)
        }
    }

    @Test("SSO: a second authorization with the session cookie gets a code at once")
    func singleSignOn() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let other = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            var browser = harness.browser()
            let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            _ = try await browser.submit(
                page, form: "password-form", [("email", user.email), ("password", LoginHarness.password)])
            let sso = try await browser.authorize(AuthorizeRequestTests.valid(other, pkce: try PKCEPair()))
            #expect(sso.status.code == 302)
            let redirect = try ClientRedirect(sso, to: LoginHarness.redirectURI)
            #expect(redirect.query["code"] != nil)
            #expect(redirect.query["state"] == "st&te 1")
            #expect(redirect.query["iss"] == CoreHarness.issuer)
            let silent = try await browser.authorize(
                AuthorizeRequestTests.valid(other, pkce: try PKCEPair()) + [("prompt", "none")])
            #expect(try ClientRedirect(silent, to: LoginHarness.redirectURI).query["code"] != nil)
            let forced = try await browser.authorize(
                AuthorizeRequestTests.valid(other, pkce: try PKCEPair()) + [("prompt", "login")])
            #expect(Page(forced).form("password-form") != nil)
        }
    }

    @Test("revoking the user's tokens, disabling the user, deleting the session, or the session's age ends SSO")
    func ssoEnds() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            var browser = harness.browser()
            let signIn = { (browser: inout Browser) in
                _ = try await LoginHarness.signIn(&browser, client: client, email: user.email)
            }
            let ssoWorks = { (browser: inout Browser) -> Bool in
                let response = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
                return response.status.code == 302 && response.headers["Location"]?.contains("code=") == true
            }
            // The authorization trusts the sealed cookie and learns of a revocation from its change notice, which
            // arrives a moment after the change commits: wait for it (a second at most).
            let ssoSettles = { (browser: inout Browser, works: Bool) -> Bool in
                for _ in 0..<100 {
                    if try await ssoWorks(&browser) == works { return true }
                    try await Task.sleep(for: .milliseconds(10))
                }
                return false
            }
            try await signIn(&browser)
            #expect(try await ssoWorks(&browser))
            try await harness.core.database.withPool { pool in
                try await UserStore.revokeTokens(pool, userID: user.userID, now: harness.clock.now())
            }
            #expect(try await ssoSettles(&browser, false))

            try await signIn(&browser)
            try await harness.core.sql("UPDATE users SET disabled = true WHERE user_id = $1", [user.userID])
            #expect(try await ssoSettles(&browser, false))
            try await harness.core.sql("UPDATE users SET disabled = false WHERE user_id = $1", [user.userID])
            #expect(try await ssoSettles(&browser, true))

            // A session deleted before its expiry (here by hand; sign-out and the step-up delete theirs).
            #expect(
                try await harness.core.sql(
                    """
                    DELETE FROM oauth_browser_sessions s USING token_families f
                    WHERE f.family_id = s.family_id AND f.user_id = $1 AND f.revoked_at IS NULL RETURNING 1
                    """, [user.userID]) == 1)
            #expect(try await ssoSettles(&browser, false))

            try await signIn(&browser)
            harness.clock.advance(by: 12 * 3600 + 1)
            #expect(try await ssoWorks(&browser) == false)
        }
    }

    @Test("a session cookie that is junk, altered, of another key or expired is no session: the login page")
    func brokenSessionCookies() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            var browser = harness.browser()
            try await LoginHarness.signIn(&browser, client: client, email: user.email)
            let sealed = try #require(browser.cookies["__Host-tessera_session"])
            var bytes = try Base64URL.decode(sealed)
            bytes[bytes.count / 2] ^= 0x01
            let opened = try #require(SessionCookie.open(sealed, keys: harness.core.services.sessionKeys))
            let foreignKeys = try KeyRing(
                current: try MasterKey(key: try SymmetricKey(bytes: try SecureRandom.bytes(count: 32)))
            ).derived(purpose: "browser session")
            var expired = opened
            expired.expiresAt = harness.clock.now().addingTimeInterval(-1)
            for broken in [
                "junk", Base64URL.encode(bytes), String(sealed.dropLast(3)), try opened.sealed(keys: foreignKeys),
                try expired.sealed(keys: harness.core.services.sessionKeys), String(repeating: "A", count: 3000),
            ] {
                var other = harness.browser()
                other.cookies["__Host-tessera_session"] = broken
                let page = try await other.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
                #expect(page.status.code == 200 && Page(page).form("password-form") != nil)
            }
            // The real one still signs in.
            let sso = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
            #expect(sso.status.code == 302)
        }
    }

    @Test("a code issued from a session whose sign-in was revoked before the notice arrived is refused")
    func aCodeOfARevokedSignInIsRefused() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let user = try await harness.user(tenantID: nil)
            var browser = harness.browser()
            try await LoginHarness.signIn(&browser, client: client, email: user.email)
            let pkce = try PKCEPair()
            let sso = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: pkce))
            let code = try #require(try ClientRedirect(sso, to: LoginHarness.redirectURI).query["code"])
            // What an authorization that had not heard of the revocation yet issued.
            try await harness.core.database.withPool { pool in
                try await UserStore.revokeTokens(pool, userID: user.userID, now: harness.clock.now())
            }
            let answer = await OAuthHarness(core: harness.core).redeem(
                code, client: OAuthHarness.Client(id: client, secret: nil), redirectURI: LoginHarness.redirectURI,
                verifier: pkce.verifier)
            #expect(answer.status == 400 && answer.error == "invalid_grant")
        }
    }

    @Test("a client of a tenant signs in users of that tenant only; a session of another tenant is ignored")
    func tenants() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant()
            let tenantClient = try await harness.client(tenantID: tenant)
            let projectClient = try await harness.client(tenantID: nil)
            let projectUser = try await harness.user(tenantID: nil)
            let tenantUser = try await harness.user(tenantID: tenant)
            var browser = harness.browser()
            var page = try await browser.authorize(AuthorizeRequestTests.valid(tenantClient, pkce: try PKCEPair()))
            let refused = try await browser.submit(
                page, form: "password-form", [("email", projectUser.email), ("password", LoginHarness.password)])
            #expect(refused.status.code == 401)
            let done = try await browser.submit(
                refused, form: "password-form", [("email", tenantUser.email), ("password", LoginHarness.password)])
            #expect(done.headers["Location"]?.contains("code=") == true)
            page = try await browser.authorize(AuthorizeRequestTests.valid(projectClient, pkce: try PKCEPair()))
            #expect(page.status.code == 200)
            #expect(Page(page).form("password-form") != nil)
            let silent = try await browser.authorize(
                AuthorizeRequestTests.valid(projectClient, pkce: try PKCEPair()) + [("prompt", "none")])
            #expect(try ClientRedirect(silent, to: LoginHarness.redirectURI).query["error"] == "login_required")
        }
    }
}
