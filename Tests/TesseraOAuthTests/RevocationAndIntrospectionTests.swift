import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraTestSupport
import Testing

/// `/oauth2/revoke` (RFC 7009) and `/oauth2/introspect` (RFC 7662).
@Suite struct RevocationAndIntrospectionTests {
    @Test func introspectionDescribesLiveTokens() async throws {
        try await OAuthHarness.run { oauth in
            let client = try await oauth.client(.confidential)
            let user = try await oauth.user()
            let tokens = await oauth.redeem(try await oauth.code(for: user.id, client: client), client: client)
            let access = await oauth.introspect(try #require(tokens["access_token"]), as: client)
            #expect(access.status == 200)
            #expect(access.header("Cache-Control") == "no-store")
            #expect(access.json["active"] == true)
            #expect(access["token_type"] == "access_token")
            #expect(access["client_id"] == client.id && access["aud"] == client.id && access["sub"] == user.id)
            #expect(access["scope"] == "openid email profile offline_access")
            #expect(access["iss"] == CoreHarness.issuer)
            #expect(access["jti"] != nil)
            #expect(access.json["exp"]?.int64Value != nil && access.json["iat"]?.int64Value != nil)
            #expect(access.json["auth_time"]?.int64Value != nil)
            #expect(access.json["amr"] == ["pwd"])

            let refresh = await oauth.introspect(try #require(tokens["refresh_token"]), as: client)
            #expect(refresh.json["active"] == true)
            #expect(refresh["token_type"] == "refresh_token")
            #expect(refresh["sub"] == user.id && refresh["client_id"] == client.id)
            _ = await oauth.refresh(try #require(tokens["refresh_token"]), client: client)
            #expect(await oauth.introspect(try #require(tokens["refresh_token"]), as: client).json == ["active": false])
        }
    }

    @Test func introspectionIsForConfidentialClientsOnly() async throws {
        try await OAuthHarness.run { oauth in
            let (client, _, tokens) = try await oauth.signedIn()
            let accessToken = try #require(tokens["access_token"])
            let publicAnswer = await oauth.introspect(accessToken, as: client)
            #expect(publicAnswer.status == 401 && publicAnswer.error == "invalid_client")
            let anonymous = await oauth.post(.introspect, [("token", accessToken)])
            #expect(anonymous.status == 401 && anonymous.error == "invalid_client")
            let resourceServer = try await oauth.client(.confidential)
            let wrongSecret = await oauth.post(
                .introspect, [("token", accessToken), ("client_id", resourceServer.id), ("client_secret", "x")])
            #expect(wrongSecret.status == 401)
            let missing = await oauth.post(.introspect, resourceServer.formCredentials)
            #expect(missing.status == 400 && missing.error == "invalid_request")
        }
    }

    @Test func anythingInvalidIsInactive() async throws {
        try await OAuthHarness.run { oauth in
            let resourceServer = try await oauth.client(.confidential)
            let (_, _, tokens) = try await oauth.signedIn()
            let accessToken = try #require(tokens["access_token"])
            var tampered = accessToken
            tampered.removeLast(2)
            tampered += accessToken.hasSuffix("AA") ? "BB" : "AA"
            let tenantServer = try await oauth.client(.confidential, tenantID: try await oauth.tenant())
            for token in ["garbage", "a.b.c", tampered, try #require(tokens["id_token"])] {
                #expect(await oauth.introspect(token, as: resourceServer).json == ["active": false], "\(token)")
            }
            #expect(await oauth.introspect(accessToken, as: tenantServer).json == ["active": false])
            oauth.clock.advance(by: 901)
            #expect(await oauth.introspect(accessToken, as: resourceServer).json == ["active": false])
        }
    }

    @Test func revokingARefreshTokenRevokesTheGrant() async throws {
        try await OAuthHarness.run { oauth in
            let resourceServer = try await oauth.client(.confidential)
            let (client, _, tokens) = try await oauth.signedIn()
            let refreshToken = try #require(tokens["refresh_token"])
            let accessToken = try #require(tokens["access_token"])
            let revoked = await oauth.post(.revoke, [("token", refreshToken)] + client.formCredentials)
            #expect(revoked.status == 200)
            #expect(revoked.header("Cache-Control") == "no-store")
            #expect(await oauth.refresh(refreshToken, client: client).error == "invalid_grant")
            #expect(await oauth.introspect(accessToken, as: resourceServer).json == ["active": false])
        }
    }

    @Test func revokingAnAccessTokenRevokesTheGrant() async throws {
        try await OAuthHarness.run { oauth in
            let client = try await oauth.client(.confidential)
            let user = try await oauth.user()
            let tokens = await oauth.redeem(try await oauth.code(for: user.id, client: client), client: client)
            let accessToken = try #require(tokens["access_token"])
            let secret = try #require(client.secret)
            let revoked = await oauth.post(
                .revoke, [("token", accessToken), ("token_type_hint", "access_token")], basic: (client.id, secret))
            #expect(revoked.status == 200)
            #expect(await oauth.introspect(accessToken, as: client).json == ["active": false])
            #expect(await oauth.refresh(try #require(tokens["refresh_token"]), client: client).error == "invalid_grant")
        }
    }

    @Test func aRevokedClientCredentialsTokenIsInactiveAndTheClientsOthersAreNot() async throws {
        try await OAuthHarness.run { oauth in
            let client = try await oauth.client(.confidential, grantTypes: [.clientCredentials], scopes: ["read"])
            let secret = try #require(client.secret)
            let grant = { await oauth.post(.token, [("grant_type", "client_credentials")], basic: (client.id, secret)) }
            let first = try #require(await grant()["access_token"])
            let second = try #require(await grant()["access_token"])
            #expect(await oauth.introspect(first, as: client).json["active"] == true)
            // Before, revoking a token without a sign-in (no family) changed nothing: it stayed active.
            let revoked = await oauth.post(.revoke, [("token", first)], basic: (client.id, secret))
            #expect(revoked.status == 200)
            #expect(await oauth.introspect(first, as: client).json == ["active": false])
            #expect(await oauth.introspect(second, as: client).json["active"] == true)
            // Revoking twice is fine (RFC 7009 §2.2); the row lives until the token's own expiry.
            #expect(await oauth.post(.revoke, [("token", first)], basic: (client.id, secret)).status == 200)
            #expect(
                try await oauth.core.sql(
                    "SELECT 1 FROM oauth_revoked_access_tokens WHERE expires_at > now() AND expires_at < now() + interval '901 seconds'"
                )
                    >= 1)
        }
    }

    @Test func otherClientsTokensAndUnknownTokensAreIgnored() async throws {
        try await OAuthHarness.run { oauth in
            let (client, _, tokens) = try await oauth.signedIn()
            let other = try await oauth.client()
            for token in [try #require(tokens["refresh_token"]), try #require(tokens["access_token"]), "unknown"] {
                let answer = await oauth.post(.revoke, [("token", token)] + other.formCredentials)
                #expect(answer.status == 200)
            }
            #expect(await oauth.refresh(try #require(tokens["refresh_token"]), client: client).status == 200)
            let unauthenticated = await oauth.post(.revoke, [("token", "x"), ("client_id", "nobody")])
            #expect(unauthenticated.status == 401 && unauthenticated.error == "invalid_client")
            #expect(unauthenticated.header("WWW-Authenticate") != nil)
            let noToken = await oauth.post(.revoke, client.formCredentials)
            #expect(noToken.status == 400 && noToken.error == "invalid_request")
        }
    }
}
