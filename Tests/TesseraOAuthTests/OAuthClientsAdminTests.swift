import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraOAuth
import TesseraPostgres
import TesseraTestSupport
import Testing

/// `oauthClients.*` over the real database (API §5).
@Suite struct OAuthClientsAdminTests {
    @Test func aConfidentialClientsSecretIsShownOnceAndStoredAsItsDigest() async throws {
        try await ClientsHarness.run { h in
            let tenant = try await h.tenant()
            let created = try await h.create(ClientsHarness.confidentialClient(), tenantID: tenant)
            let secret = try #require(created.clientSecret)
            #expect(secret.hasPrefix("tcs_"))
            #expect(secret.count == 4 + 43)
            #expect(created.tenantId == tenant)
            #expect(created.type == "confidential")
            #expect(created.grantTypes == ["authorization_code", "refresh_token"])
            #expect(created.scopes == ["openid", "profile", "email", "offline_access"])
            #expect(created.accessTokenTtl == 900 && created.refreshTokenTtl == 2_592_000)
            #expect(created.createTime == RFC3339.string(from: h.core.clock.now()))
            #expect(created.updateTime == created.createTime)
            #expect(try await h.storedDigest(created.clientId) == (try Digest.sha256(secret)))
            let stored = try #require(try await h.stored(created.clientId))
            #expect(OAuthClients.checkSecret(secret, of: stored))
            #expect(!OAuthClients.checkSecret(secret + "x", of: stored))
            let read = try await h.admin.get(clientID: created.clientId, actor: ClientsHarness.projectKey)
            #expect(read.clientSecret == nil)
            var withoutSecret = created
            withoutSecret.clientSecret = nil
            #expect(read == withoutSecret)
        }
    }

    @Test func aPublicClientHasNoSecret() async throws {
        try await ClientsHarness.run { h in
            let created = try await h.create(ClientsHarness.publicClient(["defaultScopes": ["openid"]]))
            #expect(created.clientSecret == nil)
            #expect(created.tenantId == nil)
            #expect(created.defaultScopes == ["openid"])
            #expect(try await h.storedDigest(created.clientId) == nil)
            let stored = try #require(try await h.stored(created.clientId))
            #expect(!OAuthClients.checkSecret("", of: stored))
            #expect(
                try await reason {
                    _ = try await h.admin.rotateSecret(clientID: created.clientId, actor: ClientsHarness.actor("r"))
                } == .invalidArgument)
        }
    }

    @Test func createRefusesWhatTheServerAssignsAndDisagreeingTenants() async throws {
        try await ClientsHarness.run { h in
            let tenant = try await h.tenant()
            for key in ["clientId", "createTime", "updateTime"] {
                let body = ClientsHarness.publicClient([key: "x"])
                #expect(try await reason { _ = try await h.create(body) } == .invalidArgument, "\(key)")
            }
            let mismatch = ClientsHarness.publicClient(["tenantId": "t-other"])
            #expect(try await reason { _ = try await h.create(mismatch, tenantID: tenant) } == .invalidArgument)
            let fromBody = try await h.create(ClientsHarness.publicClient(["tenantId": .string(tenant)]))
            #expect(fromBody.tenantId == tenant)
            #expect(
                try await reason { _ = try await h.create(ClientsHarness.publicClient(), tenantID: "t-none") }
                    == .tenantNotFound)
            #expect(
                try await reason {
                    _ = try await h.create(
                        ClientsHarness.publicClient(["redirectUris": ["myapp://cb"]]), tenantID: tenant)
                } == .invalidRedirectURI)
            let page = try await h.admin.list(
                tenantID: tenant, pageSize: nil, pageToken: nil, actor: ClientsHarness.projectKey)
            #expect(page.clients.map(\.clientId) == [fromBody.clientId])
        }
    }

    @Test func updateWithoutAMaskReplacesEveryField() async throws {
        try await ClientsHarness.run { h in
            let created = try await h.create(
                ClientsHarness.publicClient([
                    "scopes": ["openid", "email"], "defaultScopes": ["openid"], "accessTokenTtl": 120,
                ]))
            h.core.clock.advance(by: 10)
            let updated = try await h.admin.update(
                clientID: created.clientId,
                ["clientName": "Renamed", "redirectUris": ["http://127.0.0.1/cb"]],
                updateMask: nil, actor: ClientsHarness.actor("oauthClients.update"))
            #expect(updated.clientName == "Renamed")
            #expect(updated.type == "public")
            #expect(updated.redirectUris == ["http://127.0.0.1/cb"])
            #expect(updated.scopes == OAuthClient.defaultScopes)
            #expect(updated.defaultScopes == nil)
            #expect(updated.accessTokenTtl == 900)
            #expect(updated.createTime == created.createTime)
            #expect(updated.updateTime == RFC3339.string(from: h.core.clock.now()))
            #expect(try await h.admin.get(clientID: created.clientId, actor: ClientsHarness.projectKey) == updated)
            // A client read back and sent whole is an update that changes nothing but updateTime.
            let roundTrip = try JSONValueEncoder().encode(updated).objectValue ?? [:]
            let same = try await h.admin.update(
                clientID: created.clientId, roundTrip, updateMask: nil, actor: ClientsHarness.actor("u"))
            #expect(same == updated)
        }
    }

    @Test func updateWithAMaskChangesOnlyTheNamedFields() async throws {
        try await ClientsHarness.run { h in
            let created = try await h.create(
                ClientsHarness.confidentialClient([
                    "scopes": ["openid", "email"], "defaultScopes": ["openid"], "accessTokenTtl": 120,
                ]))
            let actor = ClientsHarness.actor("oauthClients.update")
            let renamed = try await h.admin.update(
                clientID: created.clientId, ["clientName": "New name", "accessTokenTtl": 3_000],
                updateMask: "clientName", actor: actor)
            #expect(renamed.clientName == "New name")
            #expect(renamed.accessTokenTtl == 120)
            #expect(renamed.defaultScopes == ["openid"])
            // A named field absent from the body takes its default.
            let cleared = try await h.admin.update(
                clientID: created.clientId, [:], updateMask: "defaultScopes, accessTokenTtl", actor: actor)
            #expect(cleared.defaultScopes == nil)
            #expect(cleared.accessTokenTtl == 900)
            #expect(cleared.scopes == ["openid", "email"])
            #expect(cleared.clientName == "New name")
            // The secret survives updates.
            let stored = try #require(try await h.stored(created.clientId))
            #expect(OAuthClients.checkSecret(try #require(created.clientSecret), of: stored))
        }
    }

    @Test func aBadUpdateIsRefusedAndChangesNothing() async throws {
        try await ClientsHarness.run { h in
            let tenant = try await h.tenant()
            let created = try await h.create(ClientsHarness.publicClient(), tenantID: tenant)
            let actor = ClientsHarness.actor("oauthClients.update")
            let id = created.clientId
            let refused: [(JSONObject, String?, AuthReason)] = [
                (ClientsHarness.publicClient(["type": "confidential"]), nil, .invalidArgument),
                (["type": "confidential"], "type", .invalidArgument),
                (["type": "confidential", "clientName": "x"], "clientName", .invalidArgument),
                (["clientName": "x"], "clientName,nope", .invalidArgument),
                (["clientName": "x"], "clientName.first", .invalidArgument),
                (["clientName": "x"], "clientId", .invalidArgument),
                (["clientName": "x"], "", .invalidArgument),
                (["clientName": "x", "typo": 1], "clientName", .invalidArgument),
                (ClientsHarness.publicClient(["clientId": "other"]), nil, .invalidArgument),
                (ClientsHarness.publicClient(["tenantId": "t-elsewhere"]), nil, .invalidArgument),
                (
                    ["redirectUris": ["https://ok.example/cb", "http://localhost/cb"]], "redirectUris",
                    .invalidRedirectURI
                ),
                (["redirectUris": []], "redirectUris", .invalidArgument),
                (["grantTypes": ["client_credentials"]], "grantTypes", .invalidArgument),
                (["scopes": ["a b"]], "scopes", .invalidArgument),
                (["defaultScopes": ["unlisted"]], "defaultScopes", .invalidArgument),
                (["clientName": "x"], nil, .invalidArgument),
                ([:], "clientName", .invalidArgument),
            ]
            for (body, mask, expected) in refused {
                #expect(
                    try await reason {
                        _ = try await h.admin.update(clientID: id, body, updateMask: mask, actor: actor)
                    } == expected, "\(body) \(mask ?? "no mask")")
            }
            #expect(try await h.admin.get(clientID: id, actor: ClientsHarness.projectKey) == created)
            #expect(
                try await reason {
                    _ = try await h.admin.update(
                        clientID: "nope", ["clientName": "x"], updateMask: "clientName", actor: actor)
                } == .clientNotFound)
            // Naming the same type, or leaving it out, is fine.
            let kept = try await h.admin.update(
                clientID: id, ["type": "public", "clientName": "Same type"], updateMask: "clientName,type", actor: actor
            )
            #expect(kept.type == "public")
        }
    }

    @Test func listPagesThroughOneTenantsClientsOldestFirst() async throws {
        try await ClientsHarness.run { h in
            let tenant = try await h.tenant()
            let other = try await h.tenant()
            var ids: [String] = []
            for index in 0..<5 {
                ids.append(
                    try await h.create(
                        ClientsHarness.publicClient(["clientName": .string("c\(index)")]), tenantID: tenant
                    ).clientId)
                if index != 2 { h.core.clock.advance(by: 1) }
            }
            _ = try await h.create(ClientsHarness.publicClient(), tenantID: other)
            var seen: [String] = []
            var token: String?
            var pages = 0
            repeat {
                let page = try await h.admin.list(
                    tenantID: tenant, pageSize: 2, pageToken: token, actor: ClientsHarness.projectKey)
                seen += page.clients.map(\.clientId)
                #expect(page.clients.allSatisfy { $0.clientSecret == nil && $0.tenantId == tenant })
                token = page.nextPageToken
                pages += 1
            } while token != nil && pages < 10
            #expect(pages == 3)
            let sameSecond = Array(ids[2...3]).sorted()
            #expect(seen.count == 5 && Set(seen) == Set(ids))
            #expect(Array(seen[0...1]) == Array(ids[0...1]) && Array(seen[2...3]) == sameSecond && seen[4] == ids[4])
            let all = try await h.admin.list(
                tenantID: tenant, pageSize: 100, pageToken: nil, actor: ClientsHarness.projectKey)
            #expect(all.clients.count == 5 && all.nextPageToken == nil)
            let project = try await h.admin.list(
                tenantID: nil, pageSize: 100, pageToken: nil, actor: ClientsHarness.projectKey)
            #expect(project.clients.allSatisfy { $0.tenantId == nil })
            for size in [0, 101] {
                #expect(
                    try await reason {
                        _ = try await h.admin.list(
                            tenantID: tenant, pageSize: size, pageToken: nil, actor: ClientsHarness.projectKey)
                    } == .invalidArgument)
            }
            let idOnlyToken = Base64URL.encode(Array(":abc".utf8))
            for bad in ["!!", idOnlyToken] {
                #expect(
                    try await reason {
                        _ = try await h.admin.list(
                            tenantID: tenant, pageSize: nil, pageToken: bad, actor: ClientsHarness.projectKey)
                    } == .invalidArgument)
            }
            #expect(
                try await reason {
                    _ = try await h.admin.list(
                        tenantID: "t-none", pageSize: nil, pageToken: nil, actor: ClientsHarness.projectKey)
                } == .tenantNotFound)
        }
    }

    @Test func aTenantKeyReachesOnlyItsTenantsClients() async throws {
        try await ClientsHarness.run { h in
            let mine = try await h.tenant()
            let theirs = try await h.tenant()
            let key = AdminPrincipal(keyID: "clients-test-tenant", scope: .tenant(mine))
            let own = try await h.admin.create(
                tenantID: mine, ClientsHarness.confidentialClient(), actor: ClientsHarness.actor("c", key))
            let foreign = try await h.create(ClientsHarness.confidentialClient(), tenantID: theirs)
            let projectLevel = try await h.create(ClientsHarness.confidentialClient())

            #expect(
                try await reason {
                    _ = try await h.admin.create(
                        tenantID: theirs, ClientsHarness.publicClient(), actor: ClientsHarness.actor("c", key))
                } == .permissionDenied)
            #expect(
                try await reason {
                    _ = try await h.admin.create(
                        tenantID: nil, ClientsHarness.publicClient(), actor: ClientsHarness.actor("c", key))
                } == .permissionDenied)
            #expect(
                try await reason {
                    _ = try await h.admin.create(
                        tenantID: nil, ClientsHarness.publicClient(["tenantId": .string(theirs)]),
                        actor: ClientsHarness.actor("c", key))
                } == .permissionDenied)
            #expect(
                try await reason {
                    _ = try await h.admin.list(tenantID: theirs, pageSize: nil, pageToken: nil, actor: key)
                } == .permissionDenied)
            #expect(
                try await reason {
                    _ = try await h.admin.list(tenantID: nil, pageSize: nil, pageToken: nil, actor: key)
                } == .permissionDenied)
            for other in [foreign.clientId, projectLevel.clientId] {
                #expect(try await reason { _ = try await h.admin.get(clientID: other, actor: key) } == .clientNotFound)
                #expect(
                    try await reason {
                        _ = try await h.admin.update(
                            clientID: other, ["clientName": "x"], updateMask: "clientName",
                            actor: ClientsHarness.actor("u", key))
                    } == .clientNotFound)
                #expect(
                    try await reason {
                        _ = try await h.admin.rotateSecret(clientID: other, actor: ClientsHarness.actor("r", key))
                    } == .clientNotFound)
                #expect(
                    try await reason {
                        try await h.admin.delete(clientID: other, actor: ClientsHarness.actor("d", key))
                    } == .clientNotFound)
                #expect(try await h.stored(other) != nil)
            }
            #expect(try await h.admin.get(clientID: own.clientId, actor: key).clientId == own.clientId)
            let listed = try await h.admin.list(tenantID: mine, pageSize: nil, pageToken: nil, actor: key)
            #expect(listed.clients.map(\.clientId) == [own.clientId])
            _ = try await h.admin.rotateSecret(clientID: own.clientId, actor: ClientsHarness.actor("r", key))
            try await h.admin.delete(clientID: own.clientId, actor: ClientsHarness.actor("d", key))
            #expect(try await h.stored(own.clientId) == nil)
        }
    }

    @Test func issuingTokensTakesNoLockOnTheClientsRow() async throws {
        try await ClientsHarness.run { h in
            let client = try await h.create(ClientsHarness.publicClient())
            let user = try await h.core.services.usersAdmin.create(
                tenantID: nil, UserChanges(email: CoreHarness.email("clients")),
                actor: ClientsHarness.actor("users.create"))
            let now = h.core.clock.now()
            // An admin change holds the client's row for update (oauthClients.update does); a grant inserting a
            // family of that client meanwhile must not wait for it, as it did under a foreign key.
            try await h.core.database.withPool { pool in
                try await pool.transaction { admin in
                    try await admin.query(
                        "SELECT 1 FROM oauth_clients WHERE client_id = $1 FOR UPDATE", [client.clientId])
                    try await pool.transaction { grant in
                        try await grant.query("SET LOCAL lock_timeout = '300ms'", [])
                        try await grant.query(
                            """
                            INSERT INTO token_families (family_id, user_id, auth_time, sign_in_provider, created_at,
                                client_id, scope)
                            VALUES ($1, $2, $3, 'password', $3, $4, 'openid')
                            """, [try SecureRandom.identifier(), user.localId, now, client.clientId])
                    }
                }
            }
        }
    }

    @Test func deletingATenantDeletesTheTokensOfItsClientsWhoeverTheirUser() async throws {
        try await ClientsHarness.run { h in
            let tenantID = try await h.tenant()
            let client = try await h.create(ClientsHarness.publicClient(), tenantID: tenantID)
            // A project-level user, so the users' cascade cannot be what removes the family: only the client's can.
            let (user, familyID) = try await h.familyOfNewUser(clientID: client.clientId)

            try await h.core.services.configAdmin.deleteTenant(tenantID, actor: ClientsHarness.actor("tenants.delete"))
            #expect(try await h.count("SELECT 1 FROM oauth_clients WHERE client_id = $1", client.clientId) == 0)
            #expect(try await h.count("SELECT 1 FROM token_families WHERE family_id = $1", familyID) == 0)
            #expect(try await h.count("SELECT 1 FROM refresh_tokens WHERE family_id = $1", familyID) == 0)
            #expect(try await h.count("SELECT 1 FROM users WHERE user_id = $1", user) == 1)
        }
    }

    @Test func deletingAClientDeletesItsTokens() async throws {
        try await ClientsHarness.run { h in
            let client = try await h.create(ClientsHarness.publicClient())
            let (user, familyID) = try await h.familyOfNewUser(clientID: client.clientId)

            try await h.admin.delete(clientID: client.clientId, actor: ClientsHarness.actor("oauthClients.delete"))
            #expect(try await h.count("SELECT 1 FROM oauth_clients WHERE client_id = $1", client.clientId) == 0)
            #expect(try await h.count("SELECT 1 FROM token_families WHERE family_id = $1", familyID) == 0)
            #expect(try await h.count("SELECT 1 FROM refresh_tokens WHERE family_id = $1", familyID) == 0)
            #expect(try await h.count("SELECT 1 FROM users WHERE user_id = $1", user) == 1)
            #expect(
                try await reason {
                    _ = try await h.admin.get(clientID: client.clientId, actor: ClientsHarness.projectKey)
                } == .clientNotFound)
            #expect(
                try await reason {
                    try await h.admin.delete(
                        clientID: client.clientId, actor: ClientsHarness.actor("oauthClients.delete"))
                } == .clientNotFound)
        }
    }

    @Test func deletingAUserDeletesTheirFamiliesAndRefreshTokensAndNoOneElses() async throws {
        try await ClientsHarness.run { h in
            let client = try await h.create(ClientsHarness.publicClient())
            let (user, familyID) = try await h.familyOfNewUser(clientID: client.clientId)
            let (_, otherFamilyID) = try await h.familyOfNewUser(clientID: client.clientId)

            try await h.core.services.usersAdmin.delete(
                tenantID: nil, localID: user, actor: ClientsHarness.actor("users.delete"))
            #expect(try await h.count("SELECT 1 FROM token_families WHERE family_id = $1", familyID) == 0)
            #expect(try await h.count("SELECT 1 FROM refresh_tokens WHERE family_id = $1", familyID) == 0)
            #expect(try await h.count("SELECT 1 FROM token_families WHERE family_id = $1", otherFamilyID) == 1)
            #expect(try await h.count("SELECT 1 FROM refresh_tokens WHERE family_id = $1", otherFamilyID) == 1)
        }
    }

    @Test func deletingATenantDeletesItsUsersFamiliesAndRefreshTokens() async throws {
        try await ClientsHarness.run { h in
            let tenantID = try await h.tenant()
            // A project-level client, so the clients' trigger cannot be what removes the family: only the users' can.
            let client = try await h.create(ClientsHarness.publicClient())
            let (user, familyID) = try await h.familyOfNewUser(clientID: client.clientId, tenantID: tenantID)

            try await h.core.services.configAdmin.deleteTenant(tenantID, actor: ClientsHarness.actor("tenants.delete"))
            #expect(try await h.count("SELECT 1 FROM users WHERE user_id = $1", user) == 0)
            #expect(try await h.count("SELECT 1 FROM token_families WHERE family_id = $1", familyID) == 0)
            #expect(try await h.count("SELECT 1 FROM refresh_tokens WHERE family_id = $1", familyID) == 0)
        }
    }

    @Test func aGrantWaitsForNoLockOnItsUsersRow() async throws {
        try await ClientsHarness.run { h in
            let client = try await h.create(ClientsHarness.publicClient())
            let (user, _) = try await h.familyOfNewUser(clientID: client.clientId)
            let familyID = try SecureRandom.identifier()
            // users.update holds the user's row FOR UPDATE for its transaction; a grant's family and refresh token
            // go in meanwhile, as the code grant writes them (a foreign key would wait for the row's lock).
            try await h.core.database.withPool { pool in
                try await pool.transaction { update in
                    try await update.query("SELECT 1 FROM users WHERE user_id = $1 FOR UPDATE", [user])
                    try await h.core.database.withPool { other in
                        try await other.transaction { grant in
                            try await grant.query("SET LOCAL lock_timeout = '2s'", [])
                            try await grant.query(
                                """
                                WITH family AS (
                                    INSERT INTO token_families (family_id, user_id, auth_time, sign_in_provider,
                                        created_at, client_id, scope)
                                    VALUES ($1, $2, now(), 'password', now(), $3, 'openid') RETURNING family_id
                                )
                                INSERT INTO refresh_tokens (token_hash, family_id, issued_at, expires_at)
                                SELECT $4, family_id, now(), now() FROM family
                                """, [familyID, user, client.clientId, try SecureRandom.bytes(count: 32)])
                        }
                    }
                }
            }
            #expect(try await h.count("SELECT 1 FROM refresh_tokens WHERE family_id = $1", familyID) == 1)
        }
    }

    @Test func rotatingTheSecretEndsTheOldOneAtOnce() async throws {
        try await ClientsHarness.run { h in
            let created = try await h.create(ClientsHarness.confidentialClient())
            let old = try #require(created.clientSecret)
            h.core.clock.advance(by: 5)
            let rotated = try await h.admin.rotateSecret(
                clientID: created.clientId, actor: ClientsHarness.actor("oauthClients.rotateSecret"))
            #expect(rotated.clientId == created.clientId)
            #expect(rotated.clientSecret != old && rotated.clientSecret.hasPrefix("tcs_"))
            let stored = try #require(try await h.stored(created.clientId))
            #expect(!OAuthClients.checkSecret(old, of: stored))
            #expect(OAuthClients.checkSecret(rotated.clientSecret, of: stored))
            #expect(try await h.storedDigest(created.clientId) == (try Digest.sha256(rotated.clientSecret)))
            let read = try await h.admin.get(clientID: created.clientId, actor: ClientsHarness.projectKey)
            #expect(read.updateTime == RFC3339.string(from: h.core.clock.now()))
            #expect(
                try await reason {
                    _ = try await h.admin.rotateSecret(clientID: "nope", actor: ClientsHarness.actor("r"))
                } == .clientNotFound)
        }
    }

    @Test func everyChangeIsAuditedWithTheSecretRedacted() async throws {
        try await ClientsHarness.run { h in
            let tenant = try await h.tenant()
            let created = try await h.create(ClientsHarness.confidentialClient(), tenantID: tenant)
            let target = "oauthClients/\(created.clientId)"
            _ = try await h.admin.update(
                clientID: created.clientId, ["clientName": "Renamed"], updateMask: "clientName",
                actor: ClientsHarness.actor("oauthClients.update"))
            let rotated = try await h.admin.rotateSecret(
                clientID: created.clientId, actor: ClientsHarness.actor("oauthClients.rotateSecret"))
            try await h.admin.delete(clientID: created.clientId, actor: ClientsHarness.actor("oauthClients.delete"))

            let events = try await h.auditEvents(tenant).filter { $0.target == target }
            #expect(
                events.map(\.method).sorted() == [
                    "oauthClients.create", "oauthClients.delete", "oauthClients.rotateSecret", "oauthClients.update",
                ])
            #expect(events.allSatisfy { $0.actorKeyId == ClientsHarness.projectKey.keyID && $0.tenantId == tenant })
            let create = try #require(events.first { $0.method == "oauthClients.create" })
            #expect(create.before == nil)
            #expect(create.after?["clientSecret"] == "[REDACTED]")
            #expect(create.after?["clientName"] == "Web backend")
            #expect(create.after?["clientId"] == .string(created.clientId))
            let update = try #require(events.first { $0.method == "oauthClients.update" })
            #expect(update.before?["clientName"] == "Web backend")
            #expect(update.after?["clientName"] == "Renamed")
            #expect(update.after?["clientSecret"] == nil)
            let rotation = try #require(events.first { $0.method == "oauthClients.rotateSecret" })
            #expect(rotation.after?["clientSecret"] == "[REDACTED]")
            let deletion = try #require(events.first { $0.method == "oauthClients.delete" })
            #expect(deletion.before?["clientName"] == "Renamed")
            #expect(deletion.after == nil)
            for secret in [try #require(created.clientSecret), rotated.clientSecret] {
                #expect(
                    try await h.core.sql(
                        "SELECT 1 FROM audit_events WHERE before::text LIKE $1 OR after::text LIKE $1", ["%\(secret)%"])
                        == 0)
            }
        }
    }
}
