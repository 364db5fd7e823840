import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraOAuth
import TesseraTestSupport
import Testing

/// RP-Initiated Logout at `/oauth2/logout`.
@Suite("Logout")
struct LogoutTests {
    static let signedOutURI = "http://127.0.0.1/signed-out"

    /// A client of the project level that registered ``signedOutURI``, and a browser signed in to it by password
    /// (an SSO session), with the tokens of its code.
    struct SignedIn {
        var browser: Browser
        let client: String
        let tokens: Answer
    }

    static func signIn(_ harness: LoginHarness) async throws -> SignedIn {
        let client = try await harness.client(tenantID: nil)
        try await harness.core.sql(
            "UPDATE oauth_clients SET post_logout_redirect_uris = $2 WHERE client_id = $1", [client, signedOutURI])
        let user = try await harness.user(tenantID: nil)
        var browser = harness.browser()
        let pkce = try PKCEPair()
        let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: pkce))
        let done = try await browser.submit(
            page, form: "password-form", [("email", user.email), ("password", LoginHarness.password)])
        let code = try #require(try ClientRedirect(done, to: LoginHarness.redirectURI).query["code"])
        let tokens = await OAuthHarness(core: harness.core).redeem(
            code, client: OAuthHarness.Client(id: client, secret: nil), redirectURI: LoginHarness.redirectURI,
            verifier: pkce.verifier)
        #expect(tokens.status == 200)
        return SignedIn(browser: browser, client: client, tokens: tokens)
    }

    /// Whether the browser still gets a code at once (SSO) from `client`.
    static func hasSession(_ browser: inout Browser, client: String) async throws -> Bool {
        let answer = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
        return answer.status.code == 302
    }

    @Test("with id_token_hint: signed out at once, the grant revoked, back to the registered URI with state")
    func withHint() async throws {
        try await LoginHarness.run { harness in
            var signedIn = try await Self.signIn(harness)
            let idToken = try #require(signedIn.tokens["id_token"])
            let claims = try await OAuthHarness(core: harness.core).verify(
                idToken, as: OpenIDTokenClaims.self, typ: .jwt
            ).claims
            #expect(claims.sid != nil)
            // Expired hints are still hints.
            harness.clock.advance(by: 2 * 3600)
            let query = URLEncodedForm(fields: [
                (name: "id_token_hint", value: idToken), (name: "post_logout_redirect_uri", value: Self.signedOutURI),
                (name: "state", value: "s t"),
            ]).encoded
            let answer = try await signedIn.browser.send(.get, "/oauth2/logout?" + query)
            #expect(answer.status.code == 303)
            #expect(answer.headers["Location"] == Self.signedOutURI + "?state=s%20t")
            #expect(signedIn.browser.setCookies.last?.contains("Max-Age=0") == true)
            let refreshed = await OAuthHarness(core: harness.core).refresh(
                try #require(signedIn.tokens["refresh_token"]),
                client: OAuthHarness.Client(id: signedIn.client, secret: nil))
            #expect(refreshed.error == "invalid_grant")
            #expect(try await !Self.hasSession(&signedIn.browser, client: signedIn.client))
        }
    }

    @Test("without a hint: a confirmation page that changes nothing, then its form signs out")
    func confirmation() async throws {
        try await LoginHarness.run { harness in
            var signedIn = try await Self.signIn(harness)
            let page = try await signedIn.browser.send(
                .get,
                "/oauth2/logout?client_id=\(signedIn.client)&post_logout_redirect_uri=\(Self.signedOutURI)&state=x")
            #expect(page.status.code == 200 && Page(page).contains("Test App asks to sign you out"))
            #expect(try await Self.hasSession(&signedIn.browser, client: signedIn.client))
            var stranger = harness.browser()
            #expect(try await stranger.submit(page, form: "logout-form").status.code == 403)
            #expect(try await Self.hasSession(&signedIn.browser, client: signedIn.client))
            let done = try await signedIn.browser.submit(page, form: "logout-form")
            #expect(done.status.code == 303 && done.headers["Location"] == Self.signedOutURI + "?state=x")
            #expect(try await !Self.hasSession(&signedIn.browser, client: signedIn.client))
            // Without a session there is nothing to confirm.
            let again = try await signedIn.browser.send(.get, "/oauth2/logout")
            #expect(again.status.code == 200 && Page(again).contains(#"id="signed-out""#))
        }
    }

    @Test("an unregistered URI, an unknown client, a foreign hint or a mismatched client_id: 400, nobody signed out")
    func refusals() async throws {
        try await LoginHarness.run { harness in
            var signedIn = try await Self.signIn(harness)
            let idToken = try #require(signedIn.tokens["id_token"])
            let other = try await harness.client(tenantID: nil)
            let refused = [
                "client_id=\(signedIn.client)&post_logout_redirect_uri=https://evil.example/",
                "post_logout_redirect_uri=\(Self.signedOutURI)",
                "client_id=unknown",
                "id_token_hint=not.a.token",
                "id_token_hint=\(idToken)&client_id=\(other)",
            ]
            for query in refused {
                let answer = try await signedIn.browser.send(.get, "/oauth2/logout?" + query)
                #expect(answer.status.code == 400, "\(query)")
                #expect(answer.headers["Location"] == nil)
            }
            #expect(try await Self.hasSession(&signedIn.browser, client: signedIn.client))
            let refreshed = await OAuthHarness(core: harness.core).refresh(
                try #require(signedIn.tokens["refresh_token"]),
                client: OAuthHarness.Client(id: signedIn.client, secret: nil))
            #expect(refreshed.status == 200)
        }
    }
}
