import TesseraCore
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraTestSupport
import Testing

/// `GET /oauth2/authorize`: which faults end on an HTML 400 page and which are redirected with `state` and `iss`.
@Suite("Authorization requests")
struct AuthorizeRequestTests {
    /// The parameters of a valid request of `clientID`.
    static func valid(
        _ clientID: String, pkce: PKCEPair, redirectURI: String = LoginHarness.redirectURI
    )
        -> [(String, String)]
    {
        [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
            ("state", "st&te 1"), ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
            ("scope", "openid email"),
        ]
    }

    /// `parameters` with `name` replaced by `value`, or removed when `value` is nil.
    static func with(_ parameters: [(String, String)], _ name: String, _ value: String?) -> [(String, String)] {
        var result = parameters.filter { $0.0 != name }
        if let value { result.append((name, value)) }
        return result
    }

    @Test("unknown or missing client, missing or unregistered redirect URI: HTML 400, never a redirect")
    func errorPages() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let pkce = try PKCEPair()
            let valid = Self.valid(client, pkce: pkce)
            let cases: [[(String, String)]] = [
                Self.with(valid, "client_id", nil),
                Self.with(valid, "client_id", "no-such-client"),
                Self.with(valid, "redirect_uri", nil),
                Self.with(valid, "redirect_uri", "http://127.0.0.1/other"),
                Self.with(valid, "redirect_uri", "http://localhost/callback"),
                Self.with(valid, "redirect_uri", "http://127.0.0.1:8080/callback/x"),
                valid + [("client_id", client)],
                valid + [("redirect_uri", LoginHarness.redirectURI)],
            ]
            for parameters in cases {
                var browser = harness.browser()
                let response = try await browser.authorize(parameters)
                #expect(response.status.code == 400)
                #expect(response.headers["Location"] == nil)
                #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
                #expect(Page(response).contains("<h1"))
            }
        }
    }

    @Test("faults after the client is known are redirected with error, state and iss")
    func redirectedErrors() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let pkce = try PKCEPair()
            let valid = Self.valid(client, pkce: pkce)
            let cases: [([(String, String)], String)] = [
                (Self.with(valid, "response_type", "token"), "unsupported_response_type"),
                (Self.with(valid, "response_type", nil), "invalid_request"),
                (Self.with(valid, "code_challenge", nil), "invalid_request"),
                (Self.with(valid, "code_challenge_method", nil), "invalid_request"),
                (Self.with(valid, "code_challenge_method", "plain"), "invalid_request"),
                (Self.with(valid, "code_challenge", "short"), "invalid_request"),
                (Self.with(valid, "code_challenge", String(repeating: "a", count: 42) + "="), "invalid_request"),
                (Self.with(valid, "code_challenge", String(repeating: "a", count: 44)), "invalid_request"),
                (valid + [("scope", "openid")], "invalid_request"),
                (Self.with(valid, "scope", "openid admin"), "invalid_scope"),
                (Self.with(valid, "prompt", "none login"), "invalid_request"),
                (Self.with(valid, "prompt", "none"), "login_required"),
                // A code carries the nonce: one that could not fit in a 512-character code is refused up front.
                (Self.with(valid, "nonce", String(repeating: "n", count: 300)), "invalid_request"),
            ]
            for (parameters, error) in cases {
                var browser = harness.browser()
                let redirect = try ClientRedirect(
                    try await browser.authorize(parameters), to: LoginHarness.redirectURI + "?")
                #expect(redirect.query["error"] == error, "\(parameters)")
                #expect(redirect.query["error_description"]?.isEmpty == false)
                #expect(redirect.query["state"] == "st&te 1")
                #expect(redirect.query["iss"] == CoreHarness.issuer)
                #expect(redirect.query["code"] == nil)
            }
        }
    }

    @Test("a loopback redirect URI matches on any port, and the redirect keeps the port and an existing query")
    func loopbackPort() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(
                tenantID: nil, redirectURIs: ["http://127.0.0.1/callback", "https://app.example.com/cb?x=1"])
            let pkce = try PKCEPair()
            var browser = harness.browser()
            let port = "http://127.0.0.1:49152/callback"
            let parameters = Self.with(Self.valid(client, pkce: pkce, redirectURI: port), "response_type", "token")
            let redirect = try ClientRedirect(try await browser.authorize(parameters), to: port + "?")
            #expect(redirect.query["error"] == "unsupported_response_type")
            let https = Self.with(
                Self.valid(client, pkce: pkce, redirectURI: "https://app.example.com/cb?x=1"), "response_type", "x")
            let location = try #require(try await browser.authorize(https).headers["Location"])
            #expect(location.hasPrefix("https://app.example.com/cb?x=1&error=unsupported_response_type&"))
        }
    }

    @Test("a client without the authorization_code grant is unauthorized_client; no scope takes the defaults")
    func grantAndScopes() async throws {
        try await LoginHarness.run { harness in
            let pkce = try PKCEPair()
            let noCode = try await harness.client(tenantID: nil, grantTypes: "refresh_token")
            var browser = harness.browser()
            var redirect = try ClientRedirect(
                try await browser.authorize(Self.valid(noCode, pkce: pkce)), to: LoginHarness.redirectURI)
            #expect(redirect.query["error"] == "unauthorized_client")
            let noDefaults = try await harness.client(tenantID: nil, defaultScopes: nil)
            redirect = try ClientRedirect(
                try await browser.authorize(Self.with(Self.valid(noDefaults, pkce: pkce), "scope", nil)),
                to: LoginHarness.redirectURI)
            #expect(redirect.query["error"] == "invalid_scope")
            let defaults = try await harness.client(tenantID: nil)
            let page = try await browser.authorize(Self.with(Self.valid(defaults, pkce: pkce), "scope", nil))
            #expect(page.status.code == 200)
            #expect(Page(page).form("password-form") != nil)
        }
    }

    @Test("a tenant with disableAuth is access_denied; state absent is not echoed")
    func disabledTenant() async throws {
        try await LoginHarness.run { harness in
            let tenant = try await harness.tenant(["disableAuth": true])
            let client = try await harness.client(tenantID: tenant)
            var browser = harness.browser()
            let parameters = Self.with(Self.valid(client, pkce: try PKCEPair()), "state", nil)
            let redirect = try ClientRedirect(try await browser.authorize(parameters), to: LoginHarness.redirectURI)
            #expect(redirect.query["error"] == "access_denied")
            #expect(redirect.query["state"] == nil)
            #expect(redirect.query["iss"] == CoreHarness.issuer)
        }
    }

    @Test("anonymous authorization requests store at most 300 flows a minute per client address")
    func flowsPerClient() async throws {
        try await LoginHarness.run { harness in
            let client = try await harness.client(tenantID: nil)
            let address = "192.0.2.\(UInt8.random(in: 1...254))"
            let start = { (browser: inout Browser) async throws -> HTTPResponse in
                try await browser.send(
                    .get,
                    "/oauth2/authorize?"
                        + URLEncodedForm(
                            fields: Self.valid(client, pkce: try PKCEPair()).map { (name: $0.0, value: $0.1) }
                        ).encoded)
            }
            // Before, every GET stored a flow of a few KB for 10 minutes, without any bound.
            // (The address may have a row from an earlier run: the database is shared.)
            try await harness.core.sql(
                """
                INSERT INTO rate_limits (limit_key, window_start, sends) VALUES ($1, $2, 300)
                ON CONFLICT (limit_key) DO UPDATE SET window_start = excluded.window_start, sends = excluded.sends
                """, ["login_flows_client:\(address)", harness.clock.now()])
            var browser = harness.browser(address: address)
            let refused = try await start(&browser)
            #expect(refused.status.code == 429)
            #expect(Page(refused).text(of: "page-title") == "Too many sign-ins")
            var elsewhere = harness.browser()
            #expect(try await start(&elsewhere).status.code == 303)
            harness.clock.advance(by: 60)
            #expect(try await start(&browser).status.code == 303)
        }
    }
}
