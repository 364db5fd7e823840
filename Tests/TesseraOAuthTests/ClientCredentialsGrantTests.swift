import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraTestSupport
import Testing

/// `grant_type=client_credentials`: confidential clients only, scopes within the client's.
@Suite struct ClientCredentialsGrantTests {
    static let grants: [OAuthGrantType] = [.clientCredentials]

    @Test func aConfidentialClientGetsAnAccessTokenOfItsOwn() async throws {
        try await OAuthHarness.run { oauth in
            let tenant = try await oauth.tenant()
            let client = try await oauth.client(
                .confidential, grantTypes: Self.grants, scopes: ["read", "write"], tenantID: tenant,
                accessTokenTTL: 300)
            let secret = try #require(client.secret)
            let answer = await oauth.post(.token, [("grant_type", "client_credentials")], basic: (client.id, secret))
            #expect(answer.status == 200, "\(answer.json)")
            #expect(answer["scope"] == "read write")
            #expect(answer["refresh_token"] == nil && answer["id_token"] == nil)
            #expect(answer.json["expires_in"]?.intValue == 300)
            let access = try await oauth.verify(
                try #require(answer["access_token"]), as: AccessTokenClaims.self, typ: .accessToken)
            let claims = access.claims
            #expect(claims.sub == client.id && claims.aud == client.id && claims.clientID == client.id)
            #expect(claims.authTime == nil && claims.amr == nil && claims.sid == nil)
            #expect(claims.tenant == tenant)
            #expect(claims.exp - claims.iat == 300)
        }
    }

    @Test func scopesDefaultNarrowAndMustStayWithinTheClients() async throws {
        try await OAuthHarness.run { oauth in
            let client = try await oauth.client(
                .confidential, grantTypes: Self.grants, scopes: ["read", "write"], defaultScopes: ["read"])
            let credentials = client.formCredentials
            let byDefault = await oauth.post(.token, [("grant_type", "client_credentials")] + credentials)
            #expect(byDefault["scope"] == "read")
            let narrowed = await oauth.post(
                .token, [("grant_type", "client_credentials"), ("scope", "write")] + credentials)
            #expect(narrowed["scope"] == "write")
            let wider = await oauth.post(
                .token, [("grant_type", "client_credentials"), ("scope", "read admin")] + credentials)
            #expect(wider.status == 400 && wider.error == "invalid_scope")
        }
    }

    @Test func publicClientsAndClientsWithoutTheGrantAreRefused() async throws {
        try await OAuthHarness.run { oauth in
            let publicClient = try await oauth.client(grantTypes: Self.grants)
            let refused = await oauth.post(
                .token, [("grant_type", "client_credentials")] + publicClient.formCredentials)
            #expect(refused.status == 400 && refused.error == "unauthorized_client")
            let confidential = try await oauth.client(.confidential)
            let notAllowed = await oauth.post(
                .token, [("grant_type", "client_credentials")] + confidential.formCredentials)
            #expect(notAllowed.status == 400 && notAllowed.error == "unauthorized_client")
        }
    }
}
