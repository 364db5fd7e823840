import Logging
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraTestSupport
import Testing

@testable import TesseraOAuth

/// Two servers over one database: a client or a signing key changed through server A is seen by server B, whose
/// caches would otherwise serve the old one for a minute, as soon as the change notice arrives.
@Suite struct FleetChangeTests {
    @Test func aClientChangedOrDeletedOnOneServerIsSeenOnAnother() async throws {
        try await ClientsHarness.run { a in
            let created = try await a.create([
                "clientName": "Fleet", "type": "confidential", "grantTypes": ["client_credentials"],
                "scopes": ["read"],
            ])
            let clientID = created.clientId
            try await a.core.withSecondServer(staleness: .seconds(60)) { b in
                let environment = OAuthEnvironment(
                    services: b, factors: FactorRegistry([]), logger: Logger(label: "fleet-test"))
                try await waitUntil { b.changes.isListening }
                let before = try #require(try await environment.client(clientID))
                #expect(try await environment.client(clientID)?.secretDigest == before.secretDigest)

                _ = try await a.admin.rotateSecret(clientID: clientID, actor: ClientsHarness.actor("rotate"))
                let rotated = try #require(try await a.stored(clientID))
                try await waitUntil { try await environment.client(clientID)?.secretDigest == rotated.secretDigest }

                _ = try await a.admin.update(
                    clientID: clientID, ["scopes": ["read", "write"]], updateMask: "scopes",
                    actor: ClientsHarness.actor("update"))
                try await waitUntil { try await environment.client(clientID)?.scopes == ["read", "write"] }

                try await a.admin.delete(clientID: clientID, actor: ClientsHarness.actor("delete"))
                try await waitUntil { try await environment.client(clientID) == nil }
            }
        }
    }

    @Test func aDeletedTenantTakesItsCachedClientsAlongOnEveryServer() async throws {
        try await ClientsHarness.run { a in
            let tenantID = try await a.tenant()
            let created = try await a.create(
                ["clientName": "Tenant's", "type": "public", "redirectUris": ["https://app.example/cb"]],
                tenantID: tenantID)
            try await a.core.withSecondServer(staleness: .seconds(60)) { b in
                let environment = OAuthEnvironment(
                    services: b, factors: FactorRegistry([]), logger: Logger(label: "fleet-test"))
                try await waitUntil { b.changes.isListening }
                #expect(try await environment.client(created.clientId) != nil)
                try await a.core.services.configAdmin.deleteTenant(tenantID, actor: ClientsHarness.actor("delete"))
                try await waitUntil { try await environment.client(created.clientId) == nil }
            }
        }
    }

    @Test func theAuthorizationEndpointOfAnotherServerSeesAClientOrTenantChange() async throws {
        try await ClientsHarness.run { a in
            let tenantID = try await a.tenant()
            let redirectURI = "https://app.example/cb"
            let created = try await a.create(
                ["clientName": "Pages", "type": "public", "redirectUris": [.string(redirectURI)]], tenantID: tenantID)
            try await a.core.withSecondServer(staleness: .seconds(60)) { b in
                let logger = Logger(label: "fleet-test")
                let router = MultiFactorRouter(services: b, registry: FactorRegistry([]), logger: logger)
                let login = OAuthLogin(services: b, router: router, issuer: CoreHarness.issuer, logger: logger)
                try await waitUntil { b.changes.isListening }
                let pkce = try PKCEPair()
                let authorize = { @Sendable () async throws -> HTTPResponse in
                    var browser = Browser(login: login)
                    return try await browser.send(
                        .get,
                        "/oauth2/authorize?"
                            + URLEncodedForm(
                                fields: AuthorizeRequestTests.valid(
                                    created.clientId, pkce: pkce, redirectURI: redirectURI
                                )
                                .map { (name: $0.0, value: $0.1) }
                            ).encoded)
                }
                // B reads the client and the tenant's configuration once, then serves them from its caches.
                #expect(try await authorize().headers["Location"]?.hasPrefix("/oauth2/login") == true)
                #expect(try await authorize().headers["Location"]?.hasPrefix("/oauth2/login") == true)

                _ = try await a.core.services.configAdmin.updateTenant(
                    tenantID, ["disableAuth": true], updateMask: "disableAuth", actor: ClientsHarness.actor("update"))
                try await waitUntil {
                    try await authorize().headers["Location"]?.contains("error=access_denied") == true
                }
                _ = try await a.core.services.configAdmin.updateTenant(
                    tenantID, ["disableAuth": false], updateMask: "disableAuth", actor: ClientsHarness.actor("update"))
                try await waitUntil { try await authorize().headers["Location"]?.hasPrefix("/oauth2/login") == true }

                _ = try await a.admin.update(
                    clientID: created.clientId, ["redirectUris": ["https://app.example/other"]],
                    updateMask: "redirectUris", actor: ClientsHarness.actor("update"))
                try await waitUntil { try await authorize().status.code == 400 }

                try await a.admin.delete(clientID: created.clientId, actor: ClientsHarness.actor("delete"))
                try await waitUntil { Page(try await authorize()).contains("not registered") }
            }
        }
    }

    @Test func aBrowserSignedInOnOneServerSignsInOnAnotherUntilItSignsOutOnTheFirst() async throws {
        try await LoginHarness.run { a in
            let client = try await a.client(tenantID: nil)
            let user = try await a.user(tenantID: nil)
            var browser = a.browser()
            try await LoginHarness.signIn(&browser, client: client, email: user.email)
            let cookies = browser.cookies
            try await a.core.withSecondServer(staleness: .seconds(60)) { b in
                let logger = Logger(label: "fleet-test")
                let router = MultiFactorRouter(services: b, registry: FactorRegistry([]), logger: logger)
                let login = OAuthLogin(services: b, router: router, issuer: CoreHarness.issuer, logger: logger)
                try await waitUntil { b.changes.isListening }
                let ssoOnB = { @Sendable () async throws -> Bool in
                    var other = Browser(login: login)
                    other.cookies = cookies
                    let answer = try await other.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
                    return answer.status.code == 302 && answer.headers["Location"]?.contains("code=") == true
                }
                // B opens the session cookie A sealed.
                #expect(try await ssoOnB())
                let confirmation = try await browser.send(.get, "/oauth2/logout")
                #expect(try await browser.submit(confirmation, form: "logout-form").status.code == 200)
                // B, whose caches would serve for a minute, learns of the sign-out from its notice.
                try await waitUntil { try await !ssoOnB() }
            }
        }
    }

    @Test func aSigningKeyRotatedOnOneServerSignsOnAnother() async throws {
        try await SigningKeyRotation.exclusively {
            try await ClientsHarness.run { a in
                try await a.core.withSecondServer(staleness: .seconds(60)) { b in
                    try await waitUntil { b.changes.isListening }
                    _ = try await b.signingKeys.signer()
                    let kid = try await a.core.services.signingKeys.rotate(actor: ClientsHarness.actor("keys.rotate"))
                    // B's own reload is 30 s away: only the notice makes it sign with the new key now.
                    try await waitUntil { try await b.signingKeys.signer().kid == kid }
                }
            }
        }
    }
}
