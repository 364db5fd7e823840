import FoundationEssentials
import TesseraCore
import TesseraJSON
import TesseraOAuth
import TesseraTestSupport
import Testing

/// The registration rules of `OAuthClient` bodies (API §5), without a database.
@Suite struct OAuthClientValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let body: JSONObject
        let reason: AuthReason
        let mentions: String
        var testDescription: String { name }
    }

    static let scopes51: JSONValue = .array((0...50).map { .string("s\($0)") })
    static let uris21: JSONValue = .array((0...20).map { .string("https://app.example.com/cb\($0)") })

    static let refused: [Case] = [
        Case(
            name: "no clientName", body: ["type": "public", "redirectUris": ["https://a.example/cb"]],
            reason: .invalidArgument, mentions: "clientName is required"),
        Case(
            name: "empty clientName", body: ClientsHarness.publicClient(["clientName": ""]),
            reason: .invalidArgument, mentions: "1 to 128"),
        Case(
            name: "long clientName",
            body: ClientsHarness.publicClient(["clientName": .string(String(repeating: "n", count: 129))]),
            reason: .invalidArgument, mentions: "1 to 128"),
        Case(
            name: "control character in clientName", body: ClientsHarness.publicClient(["clientName": "a\u{7}b"]),
            reason: .invalidArgument, mentions: "control"),
        Case(
            name: "clientName not a string", body: ClientsHarness.publicClient(["clientName": 5]),
            reason: .invalidArgument, mentions: "must be a string"),
        Case(
            name: "no type", body: ["clientName": "x", "redirectUris": ["https://a.example/cb"]],
            reason: .invalidArgument, mentions: "type is required"),
        Case(
            name: "unknown type", body: ClientsHarness.publicClient(["type": "native"]),
            reason: .invalidArgument, mentions: "client.type"),
        Case(
            name: "no redirect URI for authorization_code", body: ["clientName": "x", "type": "public"],
            reason: .invalidArgument, mentions: "at least one URI"),
        Case(
            name: "post-logout URI with a fragment",
            body: ClientsHarness.publicClient(["postLogoutRedirectUris": ["https://a.example/bye#x"]]),
            reason: .invalidRedirectURI, mentions: "fragment"),
        Case(
            name: "post-logout URI twice",
            body: ClientsHarness.publicClient([
                "postLogoutRedirectUris": ["https://a.example/bye", "https://a.example/bye"]
            ]),
            reason: .invalidArgument, mentions: "postLogoutRedirectUris lists https://a.example/bye twice"),
        Case(
            name: "21 post-logout URIs", body: ClientsHarness.publicClient(["postLogoutRedirectUris": uris21]),
            reason: .invalidArgument, mentions: "postLogoutRedirectUris may list at most 20"),
        Case(
            name: "empty redirect URIs", body: ClientsHarness.publicClient(["redirectUris": []]),
            reason: .invalidArgument, mentions: "at least one URI"),
        Case(
            name: "21 redirect URIs", body: ClientsHarness.publicClient(["redirectUris": uris21]),
            reason: .invalidArgument, mentions: "at most 20"),
        Case(
            name: "refused redirect URI",
            body: ClientsHarness.publicClient(["redirectUris": ["https://a.example/ok", "myapp://cb"]]),
            reason: .invalidRedirectURI, mentions: "myapp://cb"),
        Case(
            name: "duplicate redirect URI",
            body: ClientsHarness.publicClient(["redirectUris": ["https://a.example/cb", "https://a.example/cb"]]),
            reason: .invalidArgument, mentions: "https://a.example/cb twice"),
        Case(
            name: "redirect URIs not an array",
            body: ClientsHarness.publicClient(["redirectUris": "https://a.example/cb"]),
            reason: .invalidArgument, mentions: "array"),
        Case(
            name: "redirect URI not a string", body: ClientsHarness.publicClient(["redirectUris": [1]]),
            reason: .invalidArgument, mentions: "redirectUris[0]"),
        Case(
            name: "no grant types", body: ClientsHarness.publicClient(["grantTypes": []]),
            reason: .invalidArgument, mentions: "at least one grant type"),
        Case(
            name: "unknown grant type",
            body: ClientsHarness.publicClient(["grantTypes": ["authorization_code", "password"]]),
            reason: .invalidArgument, mentions: "grantTypes[1]"),
        Case(
            name: "implicit grant", body: ClientsHarness.publicClient(["grantTypes": ["implicit"]]),
            reason: .invalidArgument, mentions: "grantTypes[0]"),
        Case(
            name: "duplicate grant type",
            body: ClientsHarness.publicClient(["grantTypes": ["authorization_code", "authorization_code"]]),
            reason: .invalidArgument, mentions: "authorization_code twice"),
        Case(
            name: "client_credentials for a public client",
            body: ClientsHarness.publicClient(["grantTypes": ["client_credentials"]]),
            reason: .invalidArgument, mentions: "needs a confidential client"),
        Case(
            name: "refresh_token alone",
            body: ClientsHarness.confidentialClient(["grantTypes": ["client_credentials", "refresh_token"]]),
            reason: .invalidArgument, mentions: "refresh_token needs authorization_code"),
        Case(
            name: "no scopes", body: ClientsHarness.publicClient(["scopes": []]),
            reason: .invalidArgument, mentions: "1 to 50"),
        Case(
            name: "51 scopes", body: ClientsHarness.publicClient(["scopes": scopes51]),
            reason: .invalidArgument, mentions: "1 to 50"),
        Case(
            name: "scope with a space", body: ClientsHarness.publicClient(["scopes": ["openid", "a b"]]),
            reason: .invalidArgument, mentions: "scopes[1]"),
        Case(
            name: "scope with a quote", body: ClientsHarness.publicClient(["scopes": ["a\"b"]]),
            reason: .invalidArgument, mentions: "scopes[0]"),
        Case(
            name: "scope with a backslash", body: ClientsHarness.publicClient(["scopes": ["a\\b"]]),
            reason: .invalidArgument, mentions: "scopes[0]"),
        Case(
            name: "scope with non-ASCII", body: ClientsHarness.publicClient(["scopes": ["prénom"]]),
            reason: .invalidArgument, mentions: "scopes[0]"),
        Case(
            name: "empty scope", body: ClientsHarness.publicClient(["scopes": [""]]),
            reason: .invalidArgument, mentions: "scopes[0]"),
        Case(
            name: "long scope",
            body: ClientsHarness.publicClient(["scopes": .array([.string(String(repeating: "s", count: 129))])]),
            reason: .invalidArgument, mentions: "scopes[0]"),
        Case(
            name: "duplicate scope", body: ClientsHarness.publicClient(["scopes": ["openid", "openid"]]),
            reason: .invalidArgument, mentions: "openid twice"),
        Case(
            name: "default scope not allowed",
            body: ClientsHarness.publicClient(["scopes": ["openid"], "defaultScopes": ["email"]]),
            reason: .invalidArgument, mentions: "email is not one of client.scopes"),
        Case(
            name: "empty default scopes", body: ClientsHarness.publicClient(["defaultScopes": []]),
            reason: .invalidArgument, mentions: "defaultScopes must list at least one"),
        Case(
            name: "duplicate default scope",
            body: ClientsHarness.publicClient(["defaultScopes": ["openid", "openid"]]),
            reason: .invalidArgument, mentions: "openid twice"),
        Case(
            name: "access token TTL too short", body: ClientsHarness.publicClient(["accessTokenTtl": 59]),
            reason: .invalidArgument, mentions: "60 to 86400"),
        Case(
            name: "access token TTL too long", body: ClientsHarness.publicClient(["accessTokenTtl": 86_401]),
            reason: .invalidArgument, mentions: "60 to 86400"),
        Case(
            name: "access token TTL as a string", body: ClientsHarness.publicClient(["accessTokenTtl": "900"]),
            reason: .invalidArgument, mentions: "must be an integer"),
        Case(
            name: "access token TTL fractional", body: ClientsHarness.publicClient(["accessTokenTtl": 900.5]),
            reason: .invalidArgument, mentions: "must be an integer"),
        Case(
            name: "refresh token TTL too short", body: ClientsHarness.publicClient(["refreshTokenTtl": 3_599]),
            reason: .invalidArgument, mentions: "3600 to 31536000"),
        Case(
            name: "refresh token TTL too long", body: ClientsHarness.publicClient(["refreshTokenTtl": 31_536_001]),
            reason: .invalidArgument, mentions: "3600 to 31536000"),
        Case(
            name: "unknown member", body: ClientsHarness.publicClient(["redirectUri": "https://a.example/cb"]),
            reason: .invalidArgument, mentions: "client.redirectUri is not a known field"),
        Case(
            name: "secret given", body: ClientsHarness.confidentialClient(["clientSecret": "mine"]),
            reason: .invalidArgument, mentions: "client.clientSecret is not a known field"),
    ]

    @Test(arguments: refused)
    func aBodyBreakingARuleIsRefusedSayingWhy(_ refused: Case) {
        #expect {
            try OAuthClientSettings(json: refused.body)
        } throws: { error in
            guard let error = error as? AuthError else { return false }
            return error.reason == refused.reason && error.detail.contains(refused.mentions)
        }
    }

    /// A client is an immutable class: two with the same members are equal, whichever object each is, and a
    /// member that differs makes them differ.
    @Test func clientsWithTheSameMembersAreEqual() {
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        func client(name: String = "App", scopes: [String] = ["openid"], digest: [UInt8]? = nil) -> OAuthClient {
            OAuthClient(
                clientID: "c", tenantID: "t", clientName: name, type: .public, redirectURIs: ["https://a.example/cb"],
                scopes: scopes, secretDigest: digest, createdAt: time, updatedAt: time)
        }
        #expect(client() == client())
        #expect(client() != client(name: "Other"))
        #expect(client() != client(scopes: ["openid", "email"]))
        #expect(client() != client(digest: [1]))
    }

    @Test func theDefaultsOfTheContractApply() throws {
        let settings = try OAuthClientSettings(json: ClientsHarness.publicClient())
        #expect(settings.grantTypes == [.authorizationCode, .refreshToken])
        #expect(settings.scopes == ["openid", "profile", "email", "offline_access"])
        #expect(settings.defaultScopes == nil)
        #expect(settings.accessTokenTTL == 900)
        #expect(settings.refreshTokenTTL == 2_592_000)
        let nulls = try OAuthClientSettings(
            json: ClientsHarness.publicClient(["grantTypes": nil, "scopes": nil, "defaultScopes": nil]))
        #expect(nulls == settings)
    }

    @Test func theLimitsThemselvesAreAccepted() throws {
        let uris = JSONValue.array((1...20).map { .string("https://app.example.com/cb\($0)") })
        let scopes = JSONValue.array((1...50).map { .string("scope\($0)") })
        let longest = try OAuthClientSettings(
            json: ClientsHarness.confidentialClient([
                "clientName": .string(String(repeating: "é", count: 128)), "redirectUris": uris, "scopes": scopes,
                "defaultScopes": ["scope1"], "accessTokenTtl": 86_400, "refreshTokenTtl": 31_536_000,
                "grantTypes": ["authorization_code", "refresh_token", "client_credentials"],
            ]))
        #expect(longest.redirectURIs.count == 20)
        #expect(longest.scopes.count == 50)
        let shortest = try OAuthClientSettings(
            json: ClientsHarness.publicClient([
                "clientName": "x", "scopes": ["!#[]~"], "accessTokenTtl": 60, "refreshTokenTtl": 3_600,
            ]))
        #expect(shortest.scopes == ["!#[]~"])
    }

    @Test func aMachineClientNeedsNoRedirectURI() throws {
        let settings = try OAuthClientSettings(json: [
            "clientName": "Batch job", "type": "confidential", "grantTypes": ["client_credentials"],
        ])
        #expect(settings.redirectURIs.isEmpty)
        #expect(settings.grantTypes == [.clientCredentials])
    }

    @Test func everyRegistrationVectorIsJudgedAsRedirectURIValidationJudgesIt() throws {
        for vector in try RedirectURITests.vectors().registration {
            let body = ClientsHarness.publicClient(["redirectUris": [.string(vector.uri)]])
            if vector.allowed {
                #expect(try OAuthClientSettings(json: body).redirectURIs == [vector.uri])
            } else {
                let error = #expect(throws: AuthError.self, "\(vector.uri)") { try OAuthClientSettings(json: body) }
                #expect(error?.reason == .invalidRedirectURI, "\(vector.uri)")
            }
        }
    }

    @Test func scopeTokensAreThoseOfRFC6749() {
        for token in ["openid", "offline_access", "https://api.example.com/read", "a:b", "!", "~", "[x]"] {
            #expect(Scope.isToken(token), "\(token)")
        }
        for token in ["", " ", "a b", "\"", "\\", "a\tb", "é", "\u{7F}"] {
            #expect(!Scope.isToken(token), "\(token)")
        }
    }
}
