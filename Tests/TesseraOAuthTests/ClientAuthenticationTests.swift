import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraTestSupport
import Testing

/// Client authentication and request syntax at the token endpoint (RFC 6749 §2.3, §3.2, §5.2).
@Suite struct ClientAuthenticationTests {
    static let grant = [("grant_type", "client_credentials")]
    static let grants: [OAuthGrantType] = [.clientCredentials]

    @Test func basicAndPostAuthenticateAConfidentialClient() async throws {
        try await OAuthHarness.run { oauth in
            let client = try await oauth.client(.confidential, grantTypes: Self.grants)
            let secret = try #require(client.secret)
            #expect(await oauth.post(.token, Self.grant, basic: (client.id, secret)).status == 200)
            #expect(await oauth.post(.token, Self.grant + client.formCredentials).status == 200)
            let withID = await oauth.post(.token, Self.grant + [("client_id", client.id)], basic: (client.id, secret))
            #expect(withID.status == 200)
        }
    }

    @Test func failuresAre401WithABasicChallenge() async throws {
        try await OAuthHarness.run { oauth in
            let client = try await oauth.client(.confidential, grantTypes: Self.grants)
            let secret = try #require(client.secret)
            let publicClient = try await oauth.client()
            let cases: [(String, Answer)] = [
                ("wrong secret, Basic", await oauth.post(.token, Self.grant, basic: (client.id, secret + "x"))),
                (
                    "wrong secret, post",
                    await oauth.post(
                        .token, Self.grant + [("client_id", client.id), ("client_secret", "nope")])
                ),
                ("unknown client", await oauth.post(.token, Self.grant, basic: ("nobody", secret))),
                (
                    "both methods",
                    await oauth.post(
                        .token, Self.grant + [("client_secret", secret)], basic: (client.id, secret))
                ),
                (
                    "Basic and another client_id",
                    await oauth.post(
                        .token, Self.grant + [("client_id", publicClient.id)], basic: (client.id, secret))
                ),
                ("confidential without secret", await oauth.post(.token, Self.grant + [("client_id", client.id)])),
                (
                    "public with secret",
                    await oauth.post(
                        .token, Self.grant + [("client_id", publicClient.id), ("client_secret", "x")])
                ),
                ("public with Basic", await oauth.post(.token, Self.grant, basic: (publicClient.id, "x"))),
                ("no client at all", await oauth.post(.token, Self.grant)),
                ("malformed Basic", await oauth.post(.token, Self.grant, headers: ["Authorization": "Basic %%%"])),
                ("Bearer", await oauth.post(.token, Self.grant, headers: ["Authorization": "Bearer x"])),
            ]
            for (name, answer) in cases {
                #expect(answer.status == 401, "\(name)")
                #expect(answer.error == "invalid_client", "\(name)")
                #expect(answer.header("WWW-Authenticate")?.hasPrefix(#"Basic realm="tessera""#) == true, "\(name)")
                #expect(answer.header("Cache-Control") == "no-store", "\(name)")
                #expect(answer["error_description"] != nil, "\(name)")
            }
        }
    }

    @Test func badRequestsAreInvalidRequests() async throws {
        try await OAuthHarness.run { oauth in
            let client = try await oauth.client(.confidential, grantTypes: Self.grants)
            let credentials = client.formCredentials
            let json = await oauth.post(.token, Self.grant + credentials, contentType: "application/json")
            #expect(json.status == 400 && json.error == "invalid_request")
            let twice = await oauth.post(.token, Self.grant + [("scope", "a"), ("scope", "b")] + credentials)
            #expect(twice.error == "invalid_request")
            let noGrant = await oauth.post(.token, credentials)
            #expect(noGrant.error == "invalid_request")
            let unknown = await oauth.post(.token, [("grant_type", "password")] + credentials)
            #expect(unknown.status == 400 && unknown.error == "unsupported_grant_type")
            #expect(unknown.header("Pragma") == "no-cache")
            let charset = await oauth.post(
                .token, Self.grant + credentials, contentType: "application/x-www-form-urlencoded; charset=UTF-8")
            #expect(charset.status == 200)
            let badEscape = await oauth.token.respond(
                to: HTTPRequest(
                    method: .post, target: "/oauth2/token",
                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Array("grant_type=client_credentials&client_id=%zz".utf8)))
            #expect(badEscape.status.code == 400)
            // A NUL would reach libpq as the end of a C string and cut the value short: refused first.
            let nul = await oauth.token.respond(
                to: HTTPRequest(
                    method: .post, target: "/oauth2/token",
                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Array("grant_type=client_credentials&client_id=\(client.id)%00x".utf8)))
            #expect(nul.status.code == 400)
            #expect(String(decoding: nul.body, as: UTF8.self).contains("invalid_request"))
        }
    }
}
