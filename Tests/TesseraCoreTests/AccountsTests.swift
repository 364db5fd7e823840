import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraPostgres
import TesseraTestSupport
import Testing

/// The time-dependent and failure paths of accounts and tokens, with a manual clock against the real database.
@Suite(.serialized) struct AccountsTests {
    let password = "correct horse battery"

    @Test func whatASignInIsIssuedWithTakesEffectOnlyWithIt() async throws {
        // accounts.signUp inserts the user as the statement leading its first sign-in: a sign-in that cannot be
        // stored must leave no account behind (a retry would find the address taken). Here the family fails (its
        // auth_time, in 7537 BC, is a timestamp PostgreSQL refuses), and the leading insert goes with it.
        try await CoreHarness.run { harness in
            let email = CoreHarness.email()
            let leading = PostgresQuery(
                """
                INSERT INTO users (user_id, email, email_verified, created_at, tokens_valid_after)
                VALUES ($1, $2, false, now(), now())
                """, [try SecureRandom.identifier(), email])
            let now = harness.clock.now()
            let absent = UserRecord(
                userID: "no-such-user-" + (try SecureRandom.identifier()), tenantID: nil, email: nil,
                emailVerified: false, phoneNumber: nil, displayName: nil, passwordHash: nil, phoneSignIn: false,
                disabled: false, createdAt: now, lastLoginAt: now, tokensValidAfter: now)
            let session = SignInSession(
                userID: absent.userID, tenantID: nil, authTime: Date(timeIntervalSince1970: -3e11), provider: "password"
            )
            let tokens = harness.services.tokens
            // The family's insert fails, after the leading insert ran.
            await #expect {
                try await harness.database.withPool { pool in
                    try await tokens.issue(pool, session: session, user: absent, leading: [leading])
                }
            } throws: { ($0 as? PostgresError)?.sqlState?.hasPrefix("22") == true }
            #expect(try await harness.sql("SELECT 1 FROM users WHERE email = $1", [email]) == 0)
        }
    }

    @Test func tenFailuresLockAnAddressUntilTheWindowEnds() async throws {
        try await CoreHarness.run { harness in
            let accounts = harness.services.accounts
            let email = CoreHarness.email()
            _ = try await accounts.signUp(email: email, password: password, displayName: nil, tenantID: nil)
            for _ in 0..<10 {
                #expect(
                    try await reason {
                        try await harness.checkPassword(email: email, password: "wrong password")
                    } == .invalidLoginCredentials)
            }
            harness.clock.advance(by: 600)
            do {
                try await harness.checkPassword(email: email, password: password)
                Issue.record("the eleventh attempt was let through")
            } catch let error as AuthError {
                #expect(error.reason == .tooManyAttemptsTryLater)
                #expect(error.retryAfter == 300)
            }
            harness.clock.advance(by: 301)
            try await harness.checkPassword(email: email, password: password)
        }
    }

    @Test func idTokensExpireAfterAnHourAndRefreshTokensAfterThirtyDays() async throws {
        try await CoreHarness.run { harness in
            let accounts = harness.services.accounts
            let tokens = try await accounts.signUp(
                email: CoreHarness.email(), password: password, displayName: nil, tenantID: nil)
            harness.clock.advance(by: 3600 + 31)
            #expect(try await reason { try await harness.verify(idToken: tokens.idToken) } == .tokenExpired)
            let rotated = try await accounts.refresh(refreshToken: tokens.refreshToken, tenantID: nil)
            try await harness.verify(idToken: rotated.idToken)
            harness.clock.advance(by: 30 * 86_400 + 1)
            #expect(
                try await reason {
                    _ = try await accounts.refresh(refreshToken: rotated.refreshToken, tenantID: nil)
                } == .invalidRefreshToken)
        }
    }

    @Test func signingOutEndsThatSignInOnly() async throws {
        try await CoreHarness.run { harness in
            let accounts = harness.services.accounts
            let address = CoreHarness.email()
            let first = try await accounts.signUp(email: address, password: password, displayName: nil, tenantID: nil)
            // A second sign-in of the same user, as a password sign-in on another device makes.
            let tokens = harness.services.tokens
            let now = harness.clock.now()
            let second = try await harness.database.withPool { pool in
                let user = try #require(try await UserStore.find(pool, id: first.localId, tenantID: nil))
                return try await tokens.issue(
                    pool,
                    session: SignInSession(userID: user.userID, tenantID: nil, authTime: now, provider: "password"),
                    user: user)
            }
            let rotated = try await accounts.refresh(refreshToken: first.refreshToken, tenantID: nil)
            try await accounts.signOut(idToken: first.idToken, tenantID: nil)
            // Every ID token and refresh token of the sign-in is refused, the rotated ones too.
            for idToken in [first.idToken, rotated.idToken] {
                #expect(try await reason { try await harness.verify(idToken: idToken) } == .tokenExpired)
            }
            #expect(
                try await reason {
                    _ = try await accounts.refresh(refreshToken: rotated.refreshToken, tenantID: nil)
                } == .invalidRefreshToken)
            #expect(
                try await reason { try await accounts.signOut(idToken: first.idToken, tenantID: nil) }
                    == .tokenExpired)
            // Another sign-in goes on.
            try await harness.verify(idToken: second.idToken)
            _ = try await accounts.refresh(refreshToken: second.refreshToken, tenantID: nil)
            #expect(
                try await reason { try await accounts.signOut(idToken: "not a token", tenantID: nil) }
                    == .invalidIDToken)
        }
    }

    @Test func aPasswordResetMailsALinkOnlyToAnAccountAndAnswersTheSameEitherWay() async throws {
        try await CoreHarness.run { harness in
            let accounts = harness.services.accounts
            let address = CoreHarness.email()
            let tokens = try await accounts.signUp(email: address, password: password, displayName: nil, tenantID: nil)
            let unknown = CoreHarness.email()
            #expect(try await accounts.sendPasswordReset(email: unknown, tenantID: nil, clientAddress: nil) == unknown)
            #expect(
                try await accounts.sendPasswordReset(email: address.uppercased(), tenantID: nil, clientAddress: nil)
                    == address)
            try await waitUntil { harness.mail.sent.contains { $0.to == address && $0.kind == "password_reset" } }
            #expect(!harness.mail.sent.contains { $0.to == unknown })
            let link = try #require(harness.mail.sent.last { $0.kind == "password_reset" }?.link)
            #expect(link.hasPrefix("\(CoreHarness.issuer)/reset-password?oobCode="))
            let code = try #require(link.split(separator: "oobCode=").last.map(String.init))

            #expect(
                try await reason {
                    _ = try await accounts.resetPassword(oobCode: code, newPassword: "short", tenantID: nil)
                } == .weakPassword)
            let newPassword = "a brand new password"
            #expect(try await accounts.resetPassword(oobCode: code, newPassword: newPassword, tenantID: nil) == address)
            // Single use; the old password and every token of before are gone; the new password works.
            #expect(
                try await reason {
                    _ = try await accounts.resetPassword(oobCode: code, newPassword: newPassword, tenantID: nil)
                } == .invalidOOBCode)
            #expect(
                try await reason { try await harness.checkPassword(email: address, password: password) }
                    == .invalidLoginCredentials)
            try await harness.checkPassword(email: address, password: newPassword)
            #expect(
                try await reason {
                    _ = try await accounts.refresh(refreshToken: tokens.refreshToken, tenantID: nil)
                } == .invalidRefreshToken)
        }
    }

    @Test func aResetLinkExpiresAfterAnHourAndDiesWithAnyRevocation() async throws {
        try await CoreHarness.run { harness in
            let accounts = harness.services.accounts
            let address = CoreHarness.email()
            let signedUp = try await accounts.signUp(
                email: address, password: password, displayName: nil, tenantID: nil)
            func newCode() async throws -> String {
                let before = harness.mail.sent.count
                _ = try await accounts.sendPasswordReset(email: address, tenantID: nil, clientAddress: nil)
                try await waitUntil { harness.mail.sent.count > before }
                let link = try #require(harness.mail.sent.last?.link)
                return try #require(link.split(separator: "oobCode=").last.map(String.init))
            }
            // A revocation (here an admin's) voids the links sent before it. (Before the clock moves: an audit
            // event dated in the future would stay the "latest" for other tests of the shared database.)
            let voided = try await newCode()
            try await harness.services.usersAdmin.revokeTokens(
                tenantID: nil, localID: signedUp.localId,
                actor: AuditLog.Actor(
                    principal: AdminPrincipal(keyID: "reset-test", scope: .project), method: "users.revokeTokens",
                    requestID: "r"))
            #expect(
                try await reason {
                    _ = try await accounts.resetPassword(
                        oobCode: voided, newPassword: "another password", tenantID: nil)
                } == .invalidOOBCode)
            let expiring = try await newCode()
            harness.clock.advance(by: Accounts.passwordResetLifetime + 1)
            #expect(
                try await reason {
                    _ = try await accounts.resetPassword(
                        oobCode: expiring, newPassword: "another password", tenantID: nil)
                } == .sessionExpired)
        }
    }

    @Test func passwordResetsAreCappedPerAddressAndPerClient() async throws {
        try await CoreHarness.run { harness in
            let accounts = harness.services.accounts
            let unknown = CoreHarness.email()
            for _ in 0..<5 {
                _ = try await accounts.sendPasswordReset(email: unknown, tenantID: nil, clientAddress: nil)
            }
            #expect(
                try await reason {
                    _ = try await accounts.sendPasswordReset(email: unknown, tenantID: nil, clientAddress: nil)
                } == .tooManyAttemptsTryLater)
            let client = "2001:db8::\(String(UInt32.random(in: 1 ... .max), radix: 16))"
            for _ in 0..<30 {
                _ = try await accounts.sendPasswordReset(
                    email: CoreHarness.email(), tenantID: nil, clientAddress: client)
            }
            #expect(
                try await reason {
                    _ = try await accounts.sendPasswordReset(
                        email: CoreHarness.email(), tenantID: nil, clientAddress: client)
                } == .tooManyAttemptsTryLater)
        }
    }

    @Test func verificationMailsAreCappedPerUserAndPerAddress() async throws {
        try await CoreHarness.run { harness in
            let accounts = harness.services.accounts
            let address = CoreHarness.email()
            let tokens = try await accounts.signUp(email: address, password: password, displayName: nil, tenantID: nil)
            // Before the cap, a batch of 100 calls sent 100 mails to whoever owns the address.
            for _ in 0..<5 { _ = try await accounts.sendVerificationEmail(idToken: tokens.idToken, tenantID: nil) }
            var retryAfter: Int?
            do {
                _ = try await accounts.sendVerificationEmail(idToken: tokens.idToken, tenantID: nil)
            } catch let error as AuthError {
                #expect(error.reason == .tooManyAttemptsTryLater)
                retryAfter = error.retryAfter
            }
            #expect(retryAfter == 3600)
            #expect(harness.mail.sent.filter { $0.to == address }.count == 5)
            // The same address in another tenant shares the address's count.
            let tenant = "t-mail\(UInt32.random(in: 0...UInt32.max))"
            try await harness.insertTenant(tenant, ["displayName": "Mail", "allowPasswordSignup": true])
            let other = try await accounts.signUp(
                email: address, password: password, displayName: nil, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await accounts.sendVerificationEmail(idToken: other.idToken, tenantID: tenant)
                } == .tooManyAttemptsTryLater)
            harness.clock.advance(by: 3600)
            _ = try await accounts.sendVerificationEmail(idToken: other.idToken, tenantID: tenant)
            #expect(harness.mail.sent.filter { $0.to == address }.count == 6)
        }
    }

    @Test func verificationCodesExpireAndAFailedDeliveryVoidsTheCode() async throws {
        try await CoreHarness.run { harness in
            let accounts = harness.services.accounts
            let tokens = try await accounts.signUp(
                email: CoreHarness.email(), password: password, displayName: nil, tenantID: nil)
            _ = try await accounts.sendVerificationEmail(idToken: tokens.idToken, tenantID: nil)
            let link = try #require(harness.mail.sent.last?.link)
            let code = try #require(link.split(separator: "oobCode=").last.map(String.init))
            harness.clock.advance(by: Accounts.oobCodeLifetime + 1)
            #expect(
                try await reason { _ = try await accounts.confirmEmail(oobCode: code, tenantID: nil) }
                    == .sessionExpired)
            #expect(
                try await reason { _ = try await accounts.confirmEmail(oobCode: code, tenantID: nil) }
                    == .invalidOOBCode)
        }
        try await CoreHarness.run(mailFails: true) { harness in
            let accounts = harness.services.accounts
            let tokens = try await accounts.signUp(
                email: CoreHarness.email(), password: password, displayName: nil, tenantID: nil)
            let before = try await Self.codeCount(harness, userID: tokens.localId)
            #expect(
                try await reason {
                    _ = try await accounts.sendVerificationEmail(idToken: tokens.idToken, tenantID: nil)
                } == .deliveryFailed)
            #expect(try await Self.codeCount(harness, userID: tokens.localId) == before)
        }
    }

    @Test func retiredSigningKeysArePublishedUntilTheirTokensHaveExpired() async throws {
        // Another test rotating the keys meanwhile would retire newKid before the clock moves.
        try await SigningKeyRotation.exclusively {
            try await CoreHarness.run { harness in
                let accounts = harness.services.accounts
                let tokens = try await accounts.signUp(
                    email: CoreHarness.email(), password: password, displayName: nil, tenantID: nil)
                let actor = AuditLog.Actor(
                    principal: AdminPrincipal(keyID: "test", scope: .project), method: "keys.rotate", requestID: "r")
                let oldKids = try await harness.services.signingKeys.jwks().keys.compactMap(\.kid)
                let newKid = try await harness.services.signingKeys.rotate(actor: actor)
                let published = try await harness.services.signingKeys.jwks().keys.compactMap(\.kid)
                #expect(Set(published).isSuperset(of: oldKids + [newKid]))
                try await harness.verify(idToken: tokens.idToken)
                harness.clock.advance(by: SigningKeys.retiredKeyPublication + 1)
                harness.services.signingKeys.invalidate()
                let later = try await harness.services.signingKeys.jwks().keys.compactMap(\.kid)
                #expect(later.contains(newKid))
                #expect(!later.contains(where: oldKids.contains))
            }
        }
    }

    @Test func forgedTokensAreRefused() async throws {
        try await CoreHarness.run { harness in
            let accounts = harness.services.accounts
            let tokens = try await accounts.signUp(
                email: CoreHarness.email(), password: password, displayName: nil, tenantID: nil)
            let parts = tokens.idToken.split(separator: ".").map(String.init)
            let unsigned = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + ".\(parts[1])."
            var flipped = Array(parts[2].utf8)
            flipped[5] = flipped[5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let badSignature = "\(parts[0]).\(parts[1]).\(String(decoding: flipped, as: UTF8.self))"
            let otherKey = try JWTSigner(key: ES256PrivateKey.generate(), kid: "attacker")
            let payload = try JSONValueDecoder().decode(
                IDTokenClaims.self, from: try JSONParser().parse(try Base64URL.decode(parts[1])))
            let selfSigned = try otherKey.sign(payload)
            for forgery in [unsigned, badSignature, selfSigned, "", "a.b.c"] {
                #expect(try await reason { try await harness.verify(idToken: forgery) } == .invalidIDToken)
            }
        }
    }

    private static func codeCount(_ harness: CoreHarness, userID: String) async throws -> Int {
        try await harness.database.withPool { pool in
            try await pool.query("SELECT count(*)::int FROM oob_codes WHERE user_id = $1", [userID])[0]
                .decode(Int.self, at: 0)
        }
    }
}
