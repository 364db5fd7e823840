import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraPostgres
import TesseraTestSupport
import Testing

@testable import TesseraOAuth

/// A grant's refresh token kept in its family's row (``GrantRefreshToken``): a rotation updates that row and leaves
/// no other; only a token Tessera issued for a family can revoke it as a reuse; tokens of before (rows of
/// `refresh_tokens`) keep working once; a master-key rotation keeps the current token valid. Each test of the endpoint
/// runs with the client read in the grant's round trip and with the client cached.
@Suite struct GrantRefreshTokenTests {
    static func familyID(of token: String) -> String { String(token.prefix { $0 != "." }) }

    static func keys() throws -> KeyRing {
        try KeyRing(current: try MasterKey(key: try SymmetricKey(bytes: try SecureRandom.bytes(count: 32))))
            .derived(purpose: "refresh token")
    }

    @Test func aTokenOpensOnlyForItsFamilyAndKeys() throws {
        let keys = try Self.keys()
        let token = try GrantRefreshToken.make(familyID: "family-a", keys: keys)
        #expect(token.digest == (try SecretDigest.of(token.secret)))
        let parsed = try #require(GrantRefreshToken.parse(token.secret))
        #expect(parsed.familyID == "family-a" && parsed.opens(with: keys))
        let envelope = String(token.secret.dropFirst("family-a.".count))
        // Another family's name on this envelope, another key, a changed or truncated envelope: named, not opened.
        for (text, ring) in [
            ("family-b." + envelope, keys), (token.secret, try Self.keys()),
            (token.secret.dropLast() + (token.secret.hasSuffix("A") ? "B" : "A"), keys),
            (String(token.secret.dropLast(4)), keys),
            ("family-a." + Base64URL.encode(Array(repeating: 1, count: 60)), keys), ("family-a.not base64!", keys),
        ] {
            let named = try #require(GrantRefreshToken.parse(text), "\(text)")
            #expect(!named.opens(with: ring), "\(text)")
        }
        // Not of this form: tokens of before (no dot), access tokens (two dots), no family, an overlong family.
        for text in [
            "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2U", "a.b.c", "." + envelope,
            String(repeating: "f", count: 65) + "." + envelope,
        ] {
            #expect(GrantRefreshToken.parse(text) == nil, "\(text)")
        }
        // The family is split off at its bytes' length, up to the longest a family may be, whatever its characters.
        for family in [String(repeating: "f", count: 64), "famille-\u{E9}t\u{E9}", "\u{1F511}"] {
            let made = try GrantRefreshToken.make(familyID: family, keys: keys)
            let named = try #require(GrantRefreshToken.parse(made.secret), "\(family)")
            #expect(named.familyID == family && named.opens(with: keys), "\(family)")
        }
        #expect(GrantRefreshToken.parse(String(repeating: "\u{E9}", count: 33) + "." + envelope) == nil)
    }

    @Test(arguments: [false, true]) func aRotationReplacesTheTokenInTheFamilysRowAndLeavesNoOtherRow(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let (client, _, tokens) = try await oauth.signedIn()
            let first = try #require(tokens["refresh_token"])
            let familyID = Self.familyID(of: first)
            let current = "SELECT 1 FROM token_families WHERE family_id = $1 AND refresh_token_hash = $2"
            #expect(try await oauth.core.sql(current, [familyID, try SecretDigest.of(first)]) == 1)
            let next = try #require(await oauth.refresh(first, client: client)["refresh_token"])
            #expect(Self.familyID(of: next) == familyID)
            #expect(try await oauth.core.sql(current, [familyID, try SecretDigest.of(next)]) == 1)
            #expect(try await oauth.core.sql("SELECT 1 FROM refresh_tokens WHERE family_id = $1", [familyID]) == 0)
        }
    }

    @Test(arguments: [false, true]) func aTokenTesseraDidNotIssueForTheFamilyRevokesNothing(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let (client, _, tokens) = try await oauth.signedIn()
            let token = try #require(tokens["refresh_token"])
            let familyID = Self.familyID(of: token)
            let otherFamily = try #require(try await oauth.signedIn().tokens["refresh_token"])
            let envelopeLength = token.count - familyID.count - 1
            let forged = [
                // Made up, another family's envelope, one of another key, the real one altered or truncated.
                familyID + "." + Base64URL.encode(try SecureRandom.bytes(count: 60)),
                familyID + "." + otherFamily.dropFirst(Self.familyID(of: otherFamily).count + 1),
                try GrantRefreshToken.make(familyID: familyID, keys: try Self.keys()).secret,
                token.dropLast() + (token.hasSuffix("A") ? "B" : "A"), String(token.dropLast(4)),
                // The real one with the `=` padding its envelope's length allows: the same bytes, another text.
                token + String(repeating: "=", count: 4 - envelopeLength % 4),
            ]
            #expect(envelopeLength % 4 != 0, "the envelope's length allows padding")
            let introspector = try await oauth.client(.confidential)
            for text in forged {
                let answer = await oauth.refresh(text, client: client)
                #expect(
                    answer.error == "invalid_grant" && answer["error_description"]?.contains("already used") != true)
                #expect(await oauth.post(.revoke, [("token", text)] + client.formCredentials).status == 200)
                #expect(await oauth.introspect(text, as: introspector).json == ["active": false])
            }
            #expect(await oauth.refresh(token, client: client).status == 200)
        }
    }

    @Test(arguments: [false, true]) func twoRotationsOfOneTokenAtOnceLetOneThroughAndRevokeTheFamily(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let (client, _, tokens) = try await oauth.signedIn()
            let token = try #require(tokens["refresh_token"])
            async let first = oauth.refresh(token, client: client)
            async let second = oauth.refresh(token, client: client)
            let answers = await [first, second]
            #expect(answers.map(\.status).sorted() == [200, 400])
            let rotated = try #require(answers.first { $0.status == 200 }?["refresh_token"])
            #expect(await oauth.refresh(rotated, client: client).error == "invalid_grant")
        }
    }

    /// A token of before this form: a row of `refresh_tokens` of a family created by a code grant.
    static func legacyToken(_ oauth: OAuthHarness, client: OAuthHarness.Client) async throws -> (String, String) {
        let token = try #require(try await oauth.signedIn(client: client).tokens["refresh_token"])
        let familyID = familyID(of: token)
        let legacy = try SecretDigest.make()
        try await oauth.core.sql(
            """
            UPDATE token_families SET refresh_token_hash = NULL, refresh_issued_at = NULL, refresh_expires_at = NULL
            WHERE family_id = $1
            """, [familyID])
        try await oauth.core.sql(
            """
            INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at)
            VALUES ($1, $2, $3, $3 + interval '1 day')
            """, [legacy.digest, familyID, oauth.clock.now()])
        return (legacy.secret, familyID)
    }

    @Test(arguments: [false, true]) func aTokenOfBeforeRefreshesOnceIntoTheNewFormAndItsReuseRevokes(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client(.confidential)
            let (legacy, familyID) = try await Self.legacyToken(oauth, client: client)
            let introspected = await oauth.introspect(legacy, as: client)
            #expect(introspected.json["active"] == true && introspected["token_type"] == "refresh_token")
            #expect(await oauth.refresh(legacy, client: client, scope: "openid phone").error == "invalid_scope")
            let next = try #require(await oauth.refresh(legacy, client: client)["refresh_token"])
            #expect(Self.familyID(of: next) == familyID)
            #expect(
                try await oauth.core.sql(
                    "SELECT 1 FROM refresh_tokens WHERE family_id = $1 AND used_at IS NOT NULL", [familyID]) == 1)
            #expect(await oauth.introspect(legacy, as: client).json == ["active": false])
            #expect(await oauth.introspect(next, as: client).json["active"] == true)
            let reuse = await oauth.refresh(legacy, client: client)
            #expect(reuse.error == "invalid_grant" && reuse["error_description"]?.contains("revoked") == true)
            #expect(await oauth.refresh(next, client: client).error == "invalid_grant")
        }
    }

    /// A server of the previous version spends a token of before in its row (marks it used, inserts the next); an
    /// upgraded server presented the same token at that moment waits for that row, then sees it spent: a reuse,
    /// never a second rotation.
    @Test(arguments: [false, true]) func aTokenOfBeforeBeingSpentByAServerOfThePreviousVersionIsNotSpentTwice(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client()
            let (legacy, familyID) = try await Self.legacyToken(oauth, client: client)
            let digest = try SecretDigest.of(legacy)
            let refreshing = try await oauth.core.withSecondServer { previousVersion in
                try await previousVersion.database.withPool { pool in
                    try await pool.transaction { transaction in
                        try await transaction.query(
                            "SELECT 1 FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE", [digest])
                        let refreshing = Task { await oauth.refresh(legacy, client: client) }
                        try await Task.sleep(for: .milliseconds(300))
                        try await transaction.query(
                            "UPDATE refresh_tokens SET used_at = now() WHERE token_hash = $1", [digest])
                        try await transaction.query(
                            """
                            INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at)
                            VALUES ($1, $2, now(), now() + interval '1 day')
                            """, [try SecretDigest.make().digest, familyID])
                        return refreshing
                    }
                }
            }
            let answer = await refreshing.value
            #expect(answer.error == "invalid_grant" && answer["error_description"]?.contains("already used") == true)
            #expect(
                try await oauth.core.sql(
                    "SELECT 1 FROM token_families WHERE family_id = $1 AND revoked_at IS NOT NULL", [familyID]) == 1)
        }
    }

    @Test(arguments: [false, true]) func revokingATokenOfBeforeRevokesItsGrant(clientCached: Bool) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            let client = try await oauth.client()
            let (legacy, _) = try await Self.legacyToken(oauth, client: client)
            #expect(await oauth.post(.revoke, [("token", legacy)] + client.formCredentials).status == 200)
            #expect(await oauth.refresh(legacy, client: client).error == "invalid_grant")
        }
    }

    @Test(arguments: [false, true]) func theCurrentTokenOutlivesTheMasterKeyItWasSealedUnder(
        clientCached: Bool
    ) async throws {
        try await OAuthHarness.run(clientsCached: clientCached) { oauth in
            func masterKey() throws -> MasterKey {
                try MasterKey(key: try SymmetricKey(bytes: try SecureRandom.bytes(count: 32)))
            }
            let (old, new) = (try masterKey(), try masterKey())
            func harness(_ ring: KeyRing) throws -> OAuthHarness {
                OAuthHarness(
                    core: oauth.core, refreshTokenKeys: try ring.derived(purpose: "refresh token"),
                    clientsCached: clientCached)
            }
            let before = try harness(try KeyRing(current: old))
            let rotating = try harness(try KeyRing(current: new, previous: [old]))
            let retired = try harness(try KeyRing(current: new))
            // While the old key is in the ring, a replaced token of that key is recognised and revokes.
            let (client, _, tokens) = try await before.signedIn()
            let first = try #require(tokens["refresh_token"])
            let second = try #require(await before.refresh(first, client: client)["refresh_token"])
            #expect(await rotating.refresh(first, client: client).error == "invalid_grant")
            #expect(await rotating.refresh(second, client: client).error == "invalid_grant")
            // Once it has left the ring, the current token still refreshes; a replaced one is refused, and its
            // reuse goes unnoticed (docs/operations.md).
            let (other, _, otherTokens) = try await before.signedIn()
            let current = try #require(otherTokens["refresh_token"])
            let stale = try #require(await before.refresh(current, client: other)["refresh_token"])
            let latest = try #require(await before.refresh(stale, client: other)["refresh_token"])
            #expect(await retired.refresh(current, client: other).error == "invalid_grant")
            #expect(await retired.refresh(latest, client: other).status == 200)
        }
    }
}
