import FoundationEssentials
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraPostgres
import TesseraTestSupport
import Testing

@testable import TesseraCore
@testable import TesseraOAuth

/// `grant_type=authorization_code`: PKCE, redirect URI, client, expiry, replay, and the tokens it issues; each test
/// runs with the client read in the grant's round trip and with the client cached (the two statements of
/// ``TokenEndpoint``).
@Suite struct AuthorizationCodeGrantTests {
    @Test(arguments: [false, true]) func aCodeBecomesSignedTokensWithTheRightClaims(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client()
            let user = try await oauth.user()
            let answer = await oauth.redeem(try await oauth.code(for: user.id, client: client), client: client)
            #expect(answer.status == 200, "\(answer.json)")
            #expect(answer.header("Cache-Control") == "no-store")
            #expect(answer.header("Pragma") == "no-cache")
            #expect(answer["token_type"] == "Bearer")
            #expect(answer.json["expires_in"]?.intValue == 900)
            #expect(answer["scope"] == "openid email profile offline_access")
            #expect(answer["refresh_token"] != nil)

            let accessToken = try #require(answer["access_token"])
            let access = try await oauth.verify(accessToken, as: AccessTokenClaims.self, typ: .accessToken)
            #expect(access.header.typ == "at+jwt")
            #expect(access.header.alg == "ES256")
            #expect(access.header.kid != nil)
            let claims = access.claims
            #expect(claims.iss == CoreHarness.issuer)
            #expect(claims.sub == user.id)
            #expect(claims.aud == client.id)
            #expect(claims.clientID == client.id)
            #expect(claims.scope == "openid email profile offline_access")
            #expect(claims.amr == ["pwd"])
            #expect(claims.authTime == Int64(oauth.clock.now().timeIntervalSince1970) - 5)
            #expect(claims.exp - claims.iat == 900)
            #expect(claims.tenant == nil)
            #expect(claims.sid != nil)
            #expect(!claims.jti.isEmpty)

            let idToken = try await oauth.verify(
                try #require(answer["id_token"]), as: OpenIDTokenClaims.self, typ: .jwt)
            #expect(idToken.header.typ == "JWT")
            let id = idToken.claims
            #expect(id.aud == client.id && id.azp == client.id && id.sub == user.id)
            #expect(id.nonce == "n-0S6_WzA2Mj")
            #expect(id.amr == ["pwd"])
            #expect(id.authTime == claims.authTime)
            let hash = try Digest.sha256(accessToken)
            #expect(id.atHash == Base64URL.encode(Array(hash.prefix(16))))
            #expect(id.email == user.email && id.emailVerified == true)
            #expect(id.name == "Ada Lovelace")
            #expect(id.phoneNumber == nil)
        }
    }

    @Test(arguments: [false, true]) func noIDTokenWithoutOpenIDAndNoRefreshTokenWithoutTheGrant(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client(grantTypes: [.authorizationCode])
            let user = try await oauth.user()
            let answer = await oauth.redeem(
                try await oauth.code(for: user.id, client: client, scope: "profile"), client: client)
            #expect(answer.status == 200, "\(answer.json)")
            #expect(answer["id_token"] == nil)
            #expect(answer["refresh_token"] == nil)
            #expect(answer["scope"] == "profile")
        }
    }

    @Test(arguments: [false, true]) func secondFactorAndTenantReachTheClaims(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let tenant = try await oauth.tenant()
            let client = try await oauth.client(scopes: ["openid", "phone"], tenantID: tenant)
            let user = try await oauth.user(tenantID: tenant, phoneNumber: "+15555550100")
            let code = try await oauth.code(
                for: user.id, client: client, scope: "openid phone", nonce: nil, secondFactor: "totp")
            let answer = await oauth.redeem(code, client: client)
            #expect(answer.status == 200, "\(answer.json)")
            let access = try await oauth.verify(
                try #require(answer["access_token"]), as: AccessTokenClaims.self, typ: .accessToken)
            #expect(access.claims.amr == ["pwd", "otp", "mfa"])
            #expect(access.claims.tenant == tenant)
            let id = try await oauth.verify(try #require(answer["id_token"]), as: OpenIDTokenClaims.self, typ: .jwt)
            #expect(id.claims.amr == ["pwd", "otp", "mfa"])
            #expect(id.claims.nonce == nil)
            #expect(id.claims.phoneNumber == "+15555550100")
            #expect(id.claims.email == nil && id.claims.name == nil)
        }
    }

    @Test(arguments: [false, true]) func aUserOfAnotherTenantThanTheClientGetsNothing(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client(tenantID: try await oauth.tenant())
            let user = try await oauth.user()
            let answer = await oauth.redeem(try await oauth.code(for: user.id, client: client), client: client)
            #expect(answer.status == 400 && answer.error == "invalid_grant")
        }
    }

    @Test(arguments: [false, true]) func aWrongVerifierSpendsTheCode(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client()
            let user = try await oauth.user()
            let code = try await oauth.code(for: user.id, client: client)
            let wrong = await oauth.redeem(code, client: client, verifier: String(repeating: "a", count: 43))
            #expect(wrong.status == 400 && wrong.error == "invalid_grant")
            #expect(wrong["error_description"]?.contains("code_verifier") == true)
            #expect(await oauth.redeem(code, client: client).error == "invalid_grant")
        }
    }

    @Test(arguments: [false, true]) func aMissingOrMalformedVerifierIsAnInvalidRequestAndLeavesTheCode(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client()
            let user = try await oauth.user()
            let code = try await oauth.code(for: user.id, client: client)
            let missing = await oauth.post(
                .token,
                [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthHarness.redirectURI)]
                    + client.formCredentials)
            #expect(missing.status == 400 && missing.error == "invalid_request")
            for verifier in [String(repeating: "a", count: 42), String(repeating: "a", count: 129), "plain verifier"] {
                let malformed = await oauth.redeem(code, client: client, verifier: verifier)
                #expect(malformed.status == 400 && malformed.error == "invalid_request", "\(verifier)")
            }
            #expect(await oauth.redeem(code, client: client).status == 200)
        }
    }

    @Test(arguments: [false, true]) func aWrongRedirectURIOrClientSpendsTheCode(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client(redirectURIs: [OAuthHarness.redirectURI, "com.example.app:/other"])
            let other = try await oauth.client()
            let user = try await oauth.user()

            let code = try await oauth.code(for: user.id, client: client)
            let wrongURI = await oauth.redeem(code, client: client, redirectURI: "com.example.app:/other")
            #expect(wrongURI.error == "invalid_grant")
            #expect(wrongURI["error_description"]?.contains("redirect_uri") == true)
            #expect(await oauth.redeem(code, client: client).error == "invalid_grant")

            let stolen = try await oauth.code(for: user.id, client: client)
            let otherClient = await oauth.redeem(stolen, client: other)
            #expect(otherClient.error == "invalid_grant")
            #expect(otherClient["error_description"]?.contains("another client") == true)
            #expect(await oauth.redeem(stolen, client: client).error == "invalid_grant")
        }
    }

    @Test(arguments: [false, true]) func aLoopbackCodeIsRedeemedWithItsOwnPortOnly(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client(redirectURIs: ["http://127.0.0.1/callback"])
            let user = try await oauth.user()
            let port = Int.random(in: 49152...65000)
            let issued = "http://127.0.0.1:\(port)/callback"
            let first = try await oauth.code(for: user.id, client: client, redirectURI: issued)
            #expect(await oauth.redeem(first, client: client, redirectURI: issued).status == 200)

            let second = try await oauth.code(for: user.id, client: client, redirectURI: issued)
            let otherPort = await oauth.redeem(
                second, client: client, redirectURI: "http://127.0.0.1:\(port + 1)/callback")
            #expect(otherPort.error == "invalid_grant")
            let third = try await oauth.code(for: user.id, client: client, redirectURI: issued)
            let noPort = await oauth.redeem(third, client: client, redirectURI: "http://127.0.0.1/callback")
            #expect(noPort.error == "invalid_grant")
        }
    }

    @Test(arguments: [false, true]) func aCodeExpiresAfterSixtySeconds(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client()
            let user = try await oauth.user()
            let late = try await oauth.code(for: user.id, client: client)
            let inTime = try await oauth.code(for: user.id, client: client)
            oauth.clock.advance(by: 59)
            #expect(await oauth.redeem(inTime, client: client).status == 200)
            oauth.clock.advance(by: 2)
            let expired = await oauth.redeem(late, client: client)
            #expect(expired.error == "invalid_grant")
            #expect(expired["error_description"]?.contains("expired") == true)
        }
    }

    @Test(arguments: [false, true]) func aReplayedCodeRevokesWhatItIssued(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client()
            let resourceServer = try await oauth.client(.confidential)
            let user = try await oauth.user()
            let code = try await oauth.code(for: user.id, client: client)
            let first = await oauth.redeem(code, client: client)
            #expect(first.status == 200)
            let accessToken = try #require(first["access_token"])
            #expect(await oauth.introspect(accessToken, as: resourceServer).json["active"] == true)

            let replay = await oauth.redeem(code, client: client)
            #expect(replay.status == 400 && replay.error == "invalid_grant")
            let refreshed = await oauth.refresh(try #require(first["refresh_token"]), client: client)
            #expect(refreshed.error == "invalid_grant")
            #expect(await oauth.introspect(accessToken, as: resourceServer).json == ["active": false])
        }
    }

    @Test(arguments: [false, true]) func aDisabledOrDeletedUserGetsNoTokens(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client()
            let disabled = try await oauth.user()
            let code = try await oauth.code(for: disabled.id, client: client)
            try await oauth.core.sql("UPDATE users SET disabled = true WHERE user_id = $1", [disabled.id])
            let answer = await oauth.redeem(code, client: client)
            #expect(answer.error == "invalid_grant")
            #expect(answer["error_description"]?.contains("disabled") == true)
        }
    }

    @Test(arguments: [false, true]) func revokingTheSignInVoidsItsUnredeemedCodes(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client()
            let user = try await oauth.user()
            let signIn = try await Self.signIn(of: user.id, oauth)
            let kept = try await oauth.code(for: user.id, client: client, signInFamilyID: signIn)
            #expect(await oauth.redeem(kept, client: client).status == 200)
            let voided = try await oauth.code(for: user.id, client: client, signInFamilyID: signIn)
            let now = oauth.clock.now()
            try await oauth.core.database.withPool { pool in
                try await UserStore.revokeTokens(pool, userID: user.id, now: now)
            }
            let answer = await oauth.redeem(voided, client: client)
            #expect(answer.error == "invalid_grant")
            #expect(answer["error_description"]?.contains("revoked") == true)
        }
    }

    @Test(arguments: [false, true]) func aClientWithoutRefreshTokensStoresNoFamilyAndItsTokensNameTheSignIn(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client(grantTypes: [.authorizationCode])
            let resourceServer = try await oauth.client(.confidential)
            let user = try await oauth.user()
            let signIn = try await Self.signIn(of: user.id, oauth)
            let code = try await oauth.code(for: user.id, client: client, signInFamilyID: signIn)
            let answer = await oauth.redeem(code, client: client)
            #expect(answer.status == 200, "\(answer.json)")
            #expect(answer["refresh_token"] == nil)
            #expect(try await oauth.core.sql("SELECT 1 FROM token_families WHERE user_id = $1", [user.id]) == 1)
            let accessToken = try #require(answer["access_token"])
            let access = try await oauth.verify(accessToken, as: AccessTokenClaims.self, typ: .accessToken)
            #expect(access.claims.sid == signIn)
            let id = try await oauth.verify(try #require(answer["id_token"]), as: OpenIDTokenClaims.self, typ: .jwt)
            #expect(id.claims.sid == signIn)
            #expect(await oauth.introspect(accessToken, as: resourceServer).json["active"] == true)

            // A replay revokes the sign-in the tokens name: they stop, and so do its unredeemed codes.
            let unredeemed = try await oauth.code(for: user.id, client: client, signInFamilyID: signIn)
            #expect(await oauth.redeem(code, client: client).error == "invalid_grant")
            #expect(await oauth.introspect(accessToken, as: resourceServer).json == ["active": false])
            #expect(await oauth.redeem(unredeemed, client: client)["error_description"]?.contains("revoked") == true)
        }
    }

    @Test(arguments: [false, true]) func deletingTheClientEndsTheAccessTokensThatNameASignIn(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client(grantTypes: [.authorizationCode])
            let resourceServer = try await oauth.client(.confidential)
            let user = try await oauth.user()
            let signIn = try await Self.signIn(of: user.id, oauth)
            let answer = await oauth.redeem(
                try await oauth.code(for: user.id, client: client, signInFamilyID: signIn), client: client)
            let accessToken = try #require(answer["access_token"])
            #expect(await oauth.introspect(accessToken, as: resourceServer).json["active"] == true)
            try await oauth.core.sql("DELETE FROM oauth_clients WHERE client_id = $1", [client.id])
            #expect(await oauth.introspect(accessToken, as: resourceServer).json == ["active": false])
        }
    }

    @Test func aCodeRedeemedWhileTheCacheStillHeldItsDeletedClientGivesTokensThatNothingAccepts() async throws {
        try await OAuthHarness.run(clientsCached: true) { oauth in
            let client = try await oauth.client()
            let resourceServer = try await oauth.client(.confidential)
            let user = try await oauth.user()
            let code = try await oauth.code(for: user.id, client: client)
            // Deleted without a change notice (as by hand in psql): this server's cache still holds the client, which
            // it serves within the staleness bound; the client's families went with it.
            try await oauth.core.sql("DELETE FROM oauth_clients WHERE client_id = $1", [client.id])
            let answer = await oauth.redeem(code, client: client)
            #expect(answer.status == 200)
            let accessToken = try #require(answer["access_token"])
            let refreshToken = try #require(answer["refresh_token"])
            // Before, introspection found the family made after the deletion and answered active.
            #expect(await oauth.introspect(accessToken, as: resourceServer).json == ["active": false])
            oauth.environment.clients.invalidate(key: nil)
            let refreshed = await oauth.refresh(refreshToken, client: client)
            #expect(refreshed.status == 401 && refreshed.error == "invalid_client")
        }
    }

    @Test(arguments: [false, true]) func aClientWithoutTheGrantIsUnauthorizedAndTheCodeSurvives(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client(grantTypes: [.refreshToken])
            let user = try await oauth.user()
            let code = try await oauth.code(for: user.id, client: client)
            let answer = await oauth.redeem(code, client: client)
            #expect(answer.status == 400 && answer.error == "unauthorized_client")
            let spent = try await oauth.core.sql(
                "SELECT 1 FROM oauth_spent_codes WHERE code_hash = $1", [try SecretDigest.of(code)])
            #expect(spent == 0)
        }
    }

    @Test(arguments: [false, true]) func unknownCodesAreInvalidGrants(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client()
            #expect(await oauth.redeem("no-such-code", client: client).error == "invalid_grant")
        }
    }

    /// A browser sign-in of `userID` (the family a login-page session rests on), as a plain row.
    static func signIn(of userID: String, _ oauth: OAuthHarness) async throws -> String {
        let familyID = "sign-in-" + UUID().uuidString
        try await oauth.core.sql(
            """
            INSERT INTO token_families (family_id, user_id, auth_time, sign_in_provider, created_at)
            VALUES ($1, $2, now(), 'password', now())
            """, [familyID, userID])
        return familyID
    }
}
