import FoundationEssentials
import Logging
import TesseraCore
import TesseraCrypto
import TesseraOAuth
import TesseraPostgres
import TesseraTestSupport
import Testing

/// Sealed authorization codes (issue "token path" item 1): nothing is stored when a code is issued; a code that
/// is not exactly one the server sealed, or is another client's or expired, is `invalid_grant`; single use holds
/// across servers; a master-key rotation keeps codes sealed under the old key redeemable until they expire.
@Suite(.serialized) struct SealedCodeTests {
    @Test func tamperedTruncatedForeignKeyedOrOtherwiseBrokenCodesAreInvalidGrants() async throws {
        try await OAuthHarness.run { oauth in
            let client = try await oauth.client()
            let user = try await oauth.user()
            let code = try await oauth.code(for: user.id, client: client)
            var bytes = try Base64URL.decode(code)
            bytes[bytes.count / 2] ^= 0x01
            let foreign = try KeyRing(
                current: try MasterKey(key: try SymmetricKey(bytes: try SecureRandom.bytes(count: 32))))
            let grant = try SealedAuthorizationCode.open(code, keys: oauth.core.services.codeKeys).grant
            var withRedirect = grant
            withRedirect.redirectURI = OAuthHarness.redirectURI
            let foreignCode = try AuthorizationCodes.issue(
                withRedirect, now: oauth.clock.now(), keys: try foreign.derived(purpose: "authorization code"))
            // Sealed with the master key itself, not the key derived for codes: another purpose never opens.
            let underMasterKey = try SealedAuthorizationCode.seal(
                withRedirect, expiresAt: oauth.clock.now().addingTimeInterval(60), keys: oauth.core.services.keyRing)
            for broken in [
                Base64URL.encode(bytes), String(code.dropLast(4)), String(code.prefix(20)), foreignCode, underMasterKey,
                code + "A", String(repeating: "A", count: 600), "",
            ] {
                let answer = await oauth.redeem(broken, client: client)
                #expect(answer.status == 400 && answer.error == (broken.isEmpty ? "invalid_request" : "invalid_grant"))
            }
            // None of them spent the real code.
            #expect(await oauth.redeem(code, client: client).status == 200)
        }
    }

    @Test func aCodeIsIssuedWithoutAWriteAndSpentByOneRowUntilItsExpiry() async throws {
        try await OAuthHarness.run { oauth in
            let client = try await oauth.client()
            let user = try await oauth.user()
            let code = try await oauth.code(for: user.id, client: client)
            #expect(code.count <= SealedAuthorizationCode.maximumLength)
            let digest = try SecretDigest.of(code)
            #expect(try await oauth.core.sql("SELECT 1 FROM oauth_spent_codes WHERE code_hash = $1", [digest]) == 0)
            #expect(await oauth.redeem(code, client: client).status == 200)
            #expect(
                try await oauth.core.sql(
                    "SELECT 1 FROM oauth_spent_codes WHERE code_hash = $1 AND family_id IS NOT NULL", [digest]) == 1)
        }
    }

    @Test func twoServersRedeemingOneCodeAtOnceIssueOnceAndTheReplayRevokesIt() async throws {
        try await OAuthHarness.run { oauth in
            let other = OAuthHarness(core: oauth.core)
            let client = try await oauth.client()
            let user = try await oauth.user()
            for _ in 0..<5 {
                let code = try await oauth.code(for: user.id, client: client)
                async let first = oauth.redeem(code, client: client)
                async let second = other.redeem(code, client: client)
                let answers = await [first, second]
                #expect(answers.filter { $0.status == 200 }.count == 1)
                #expect(answers.filter { $0.error == "invalid_grant" }.count == 1)
                let winner = try #require(answers.first { $0.status == 200 })
                // The loser's replay revoked what the winner got.
                let refreshed = await oauth.refresh(try #require(winner["refresh_token"]), client: client)
                #expect(refreshed.error == "invalid_grant")
            }
        }
    }

    /// A code is spent by the digest of its text, so it has one spelling only: the same envelope written with
    /// base64's `=` padding would be another text, a second redemption of the same grant.
    @Test func aCodeSpelledWithPaddingIsRefusedAndSpendsNothing() async throws {
        try await OAuthHarness.run { oauth in
            let client = try await oauth.client()
            let user = try await oauth.user()
            var paddable = 0
            for nonceLength in 1...3 {
                let code = try await oauth.code(
                    for: user.id, client: client, nonce: String(repeating: "n", count: nonceLength))
                guard code.count % 4 != 0 else { continue }
                paddable += 1
                let padding = String(repeating: "=", count: 4 - code.count % 4)
                let padded = code + padding
                #expect(try Base64URL.decode(padded) == Base64URL.decode(code))
                #expect(await oauth.redeem(code, client: client).status == 200)
                let replay = await oauth.redeem(padded, client: client)
                #expect(replay.status == 400 && replay.error == "invalid_grant")
                // A code of the same grant has the same length, so the same padding.
                let fresh = try await oauth.code(
                    for: user.id, client: client, nonce: String(repeating: "n", count: nonceLength))
                #expect(fresh.count == code.count)
                #expect(await oauth.redeem(fresh + padding, client: client).error == "invalid_grant")
                #expect(await oauth.redeem(fresh, client: client).status == 200)
            }
            // Of three envelope lengths in a row, two leave room for padding.
            #expect(paddable == 2)
        }
    }

    @Test func codesSealedBeforeAMasterKeyRotationStayRedeemableUntilTheyExpire() async throws {
        try await OAuthHarness.run { oauth in
            func masterKey() throws -> MasterKey {
                try MasterKey(key: try SymmetricKey(bytes: try SecureRandom.bytes(count: 32)))
            }
            let (old, new) = (try masterKey(), try masterKey())
            let before = OAuthHarness(
                core: oauth.core, codeKeys: try KeyRing(current: old).derived(purpose: "authorization code"))
            let after = OAuthHarness(
                core: oauth.core,
                codeKeys: try KeyRing(current: new, previous: [old]).derived(purpose: "authorization code"))
            let client = try await oauth.client()
            let user = try await oauth.user()
            let code = try await before.code(for: user.id, client: client)
            let fresh = try await after.code(for: user.id, client: client)
            #expect(try KeyRing.keyID(of: try Base64URL.decode(code)) != KeyRing.keyID(of: try Base64URL.decode(fresh)))
            #expect(await after.redeem(code, client: client).status == 200)
            #expect(await after.redeem(fresh, client: client).status == 200)
            // The old ring alone never opens a code of the new key; once the old key leaves the ring, neither does
            // the new ring open the old key's codes.
            #expect(
                await before.redeem(try await after.code(for: user.id, client: client), client: client).error
                    == "invalid_grant")
            let retired = OAuthHarness(
                core: oauth.core, codeKeys: try KeyRing(current: new).derived(purpose: "authorization code"))
            #expect(
                await retired.redeem(try await before.code(for: user.id, client: client), client: client).error
                    == "invalid_grant")
        }
    }

    @Test func authorizationRequestsWhoseCodeCouldNotFitAreRefused() {
        #expect(SealedAuthorizationCode.longestLength(scope: "openid profile email offline_access", nonce: nil) <= 512)
        #expect(
            SealedAuthorizationCode.longestLength(
                scope: "openid profile email offline_access", nonce: String(repeating: "n", count: 64)) <= 512)
        #expect(SealedAuthorizationCode.longestLength(scope: "openid", nonce: String(repeating: "n", count: 400)) > 512)
    }

    /// A code keeps an identifier of the server's form (22 base64url characters) as its 16 bytes; any other text,
    /// 22 characters that only look like one among them, comes back exactly as it went in.
    @Test func everyIdentifierComesBackAsItWasSealed() throws {
        let keys = try KeyRing(current: try MasterKey(key: try SymmetricKey(bytes: try SecureRandom.bytes(count: 32))))
        let serverForm = try SecureRandom.identifier()
        for identifier in [
            serverForm, "AAAAAAAAAAAAAAAAAAAAAB", "AAAAAAAAAAAAAAAAAAAAA_", "AAAAAAAAAAAAAAAAAAAA==",
            "AAAAAAAAAAAAAAAAAAAA+/", "AAAAAAAAAAAAAAAAAAAAAAA", "short", "client-é-ü",
        ] {
            let grant = AuthorizationGrant(
                clientID: identifier, userID: identifier, redirectURI: "https://app.example/cb",
                codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", scope: "openid", nonce: nil,
                authTime: Date(timeIntervalSince1970: 1_700_000_000), provider: "password", secondFactor: nil,
                secondFactorID: identifier, signInFamilyID: identifier)
            let code = try SealedAuthorizationCode.seal(
                grant, expiresAt: Date(timeIntervalSince1970: 1_700_000_060), keys: keys)
            let opened = try SealedAuthorizationCode.open(code, keys: keys).grant
            #expect(opened.clientID == identifier && opened.userID == identifier)
            #expect(opened.secondFactorID == identifier && opened.signInFamilyID == identifier)
        }
    }

}
