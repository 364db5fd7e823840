import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraPostgres
import TesseraTestSupport
import Testing

/// `grant_type=refresh_token`: rotation, reuse detection, client binding, scope narrowing, revocation; each test runs
/// with the client read in the grant's round trip and with the client cached (the two statements of ``TokenEndpoint``).
@Suite struct RefreshTokenGrantTests {
    @Test(arguments: [false, true]) func refreshTokensRotateAndReuseRevokesTheFamily(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let (client, user, tokens) = try await oauth.signedIn()
            let first = try #require(tokens["refresh_token"])
            let second = await oauth.refresh(first, client: client)
            #expect(second.status == 200, "\(second.json)")
            #expect(second.header("Cache-Control") == "no-store")
            let next = try #require(second["refresh_token"])
            #expect(next != first)
            #expect(second["scope"] == "openid email profile offline_access")
            let access = try await oauth.verify(
                try #require(second["access_token"]), as: AccessTokenClaims.self, typ: .accessToken)
            #expect(access.claims.sub == user && access.claims.amr == ["pwd"])
            let id = try await oauth.verify(try #require(second["id_token"]), as: OpenIDTokenClaims.self, typ: .jwt)
            #expect(id.claims.nonce == nil)
            #expect(id.claims.authTime == access.claims.authTime)

            let reuse = await oauth.refresh(first, client: client)
            #expect(reuse.status == 400 && reuse.error == "invalid_grant")
            #expect(reuse["error_description"]?.contains("revoked") == true)
            #expect(await oauth.refresh(next, client: client).error == "invalid_grant")
        }
    }

    @Test(arguments: [false, true]) func anotherClientCannotUseTheRefreshToken(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let (client, _, tokens) = try await oauth.signedIn()
            let other = try await oauth.client()
            let refreshToken = try #require(tokens["refresh_token"])
            #expect(await oauth.refresh(refreshToken, client: other).error == "invalid_grant")
            #expect(await oauth.refresh(refreshToken, client: client).status == 200)
        }
    }

    @Test(arguments: [false, true]) func scopeMayNarrowButNotWiden(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let (client, _, tokens) = try await oauth.signedIn()
            let refreshToken = try #require(tokens["refresh_token"])
            let wider = await oauth.refresh(refreshToken, client: client, scope: "openid phone")
            #expect(wider.status == 400 && wider.error == "invalid_scope")
            let malformed = await oauth.refresh(refreshToken, client: client, scope: "open\"id")
            #expect(malformed.error == "invalid_scope")
            let narrower = await oauth.refresh(refreshToken, client: client, scope: "email")
            #expect(narrower.status == 200, "\(narrower.json)")
            #expect(narrower["scope"] == "email")
            let access = try await oauth.verify(
                try #require(narrower["access_token"]), as: AccessTokenClaims.self, typ: .accessToken)
            #expect(access.claims.scope == "email")
            let again = await oauth.refresh(try #require(narrower["refresh_token"]), client: client)
            #expect(again["scope"] == "openid email profile offline_access")
        }
    }

    @Test(arguments: [false, true]) func theClientsRefreshTokenLifetimeApplies(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client(refreshTokenTTL: 100)
            let user = try await oauth.user()
            let tokens = await oauth.redeem(try await oauth.code(for: user.id, client: client), client: client)
            oauth.clock.advance(by: 99)
            let rotated = await oauth.refresh(try #require(tokens["refresh_token"]), client: client)
            #expect(rotated.status == 200)
            oauth.clock.advance(by: 101)
            let late = await oauth.refresh(try #require(rotated["refresh_token"]), client: client)
            #expect(late.error == "invalid_grant")
        }
    }

    @Test(arguments: [false, true]) func revokedOrDisabledUsersCannotRefresh(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let resourceServer = try await oauth.client(.confidential)
            let (client, user, tokens) = try await oauth.signedIn()
            let accessToken = try #require(tokens["access_token"])
            let refreshToken = try #require(tokens["refresh_token"])
            #expect(await oauth.introspect(refreshToken, as: resourceServer).json["active"] == false)
            let now = oauth.clock.now()
            try await oauth.core.database.withPool { pool in
                try await UserStore.revokeTokens(pool, userID: user, now: now)
            }
            #expect(await oauth.refresh(refreshToken, client: client).error == "invalid_grant")
            #expect(await oauth.introspect(accessToken, as: resourceServer).json == ["active": false])

            let (client2, user2, tokens2) = try await oauth.signedIn()
            try await oauth.core.sql("UPDATE users SET disabled = true WHERE user_id = $1", [user2])
            let refused = await oauth.refresh(try #require(tokens2["refresh_token"]), client: client2)
            #expect(refused.error == "invalid_grant")
            let inactive = await oauth.introspect(try #require(tokens2["access_token"]), as: resourceServer)
            #expect(inactive.json["active"] == false)
        }
    }

    @Test(arguments: [false, true]) func rpcAndOAuthRefreshTokensDoNotCross(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let (client, user, tokens) = try await oauth.signedIn()
            let tokensService = oauth.core.services.tokens
            let oauthRefresh = try #require(tokens["refresh_token"])
            let rpcReason = try await reason {
                _ = try await oauth.core.database.withPool { pool in
                    try await tokensService.refresh(pool, refreshToken: oauthRefresh, tenantID: nil)
                }
            }
            #expect(rpcReason == .invalidRefreshToken)
            #expect(await oauth.refresh(oauthRefresh, client: client).status == 200)

            let record = try #require(
                try await oauth.core.database.withPool { pool in
                    try await UserStore.find(pool, id: user, tenantID: nil)
                })
            let session = SignInSession(userID: user, tenantID: nil, authTime: oauth.clock.now(), provider: "password")
            let rpc = try await oauth.core.database.withPool { pool in
                try await tokensService.issue(pool, session: session, user: record)
            }
            #expect(await oauth.refresh(rpc.refreshToken, client: client).error == "invalid_grant")
            let stillGood = try await oauth.core.database.withPool { pool in
                try await tokensService.refresh(pool, refreshToken: rpc.refreshToken, tenantID: nil)
            }
            #expect(stillGood.localId == user)
        }
    }
}
