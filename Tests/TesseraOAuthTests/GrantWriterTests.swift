import FoundationEssentials
import TesseraCore
import TesseraCrypto
import TesseraPostgres
import TesseraTestSupport
import Testing

@testable import TesseraOAuth

/// Code and refresh grants that arrive while one of their kind is being written share the next statement
/// (``GrantBatches``, fed events here; ``GrantWriter`` over the test database), and each is answered as if it had
/// been written alone.
@Suite struct GrantWriterTests {
    /// Grants numbered by arrival; a grant's key is its number divided by ten (11 and 12 share one).
    static func batches(maxInFlight: Int = 1, maxBatch: Int = 4) -> GrantBatches<Int> {
        GrantBatches(maxInFlight: maxInFlight, maxBatch: maxBatch) { [UInt8($0 / 10)] }
    }

    @Test func aGrantIsSentAtOnceWhenNoneIsOutAndThoseThatArriveMeanwhileShareTheNext() {
        var batches = Self.batches()
        #expect(batches.arrived(1) == [1])
        #expect(batches.arrived(21) == nil)
        #expect(batches.arrived(31) == nil)
        #expect(batches.inFlight == 1 && batches.waitingCount == 2)
        #expect(batches.answered() == [21, 31])
        #expect(batches.answered() == nil)
        #expect(batches.inFlight == 0)
        #expect(batches.arrived(41) == [41])
    }

    @Test func aStatementTakesAtMostMaxBatchGrantsAndTheRestWaitInArrivalOrder() {
        var batches = Self.batches(maxBatch: 2)
        #expect(batches.arrived(1) == [1])
        for grant in [21, 31, 41, 51, 61] { #expect(batches.arrived(grant) == nil) }
        #expect(batches.answered() == [21, 31])
        #expect(batches.answered() == [41, 51])
        #expect(batches.answered() == [61])
        #expect(batches.answered() == nil)
    }

    @Test func twoGrantsOfOneCodeNeverShareAStatement() {
        var batches = Self.batches()
        #expect(batches.arrived(1) == [1])
        for grant in [11, 12, 21, 13] { #expect(batches.arrived(grant) == nil) }
        #expect(batches.answered() == [11, 21])
        #expect(batches.answered() == [12])
        #expect(batches.answered() == [13])
    }

    /// Two servers' statements that share keys lock their rows in one order: neither waits for a row the other
    /// locked after one it waits for.
    @Test func aStatementsGrantsGoInTheOrderOfTheirKeys() {
        var batches = Self.batches()
        #expect(batches.arrived(71) == [71])
        for grant in [51, 21, 61, 31] { #expect(batches.arrived(grant) == nil) }
        #expect(batches.answered() == [21, 31, 51, 61])
    }

    @Test func moreStatementsMayBeOutWhenAllowed() {
        var batches = Self.batches(maxInFlight: 2)
        #expect(batches.arrived(1) == [1])
        #expect(batches.arrived(21) == [21])
        #expect(batches.arrived(31) == nil)
        #expect(batches.answered() == [31])
        #expect(batches.inFlight == 2)
    }

    /// Every size of each statement, 1 to 16 grants, is one that PostgreSQL prepares, with a parameter for each of its
    /// grants' ordinals and parameters (the load reaches the larger sizes only when busy).
    @Test(arguments: ["code", "refresh"]) func everySizeOfAGrantStatementPrepares(kind: String) async throws {
        try await OAuthHarness.run { oauth in
            let statement =
                kind == "code" ? TokenEndpoint.cachedClientCodeGrants : TokenEndpoint.cachedClientRefreshGrants
            #expect(statement.maxBatch == 16)
            for grants in 1...statement.maxBatch {
                _ = try await oauth.core.sql("PREPARE grant_statement AS \(statement.text(grants: grants))")
                let parameters = try await oauth.core.sql(
                    "SELECT 1 FROM pg_prepared_statements, unnest(parameter_types) WHERE name = 'grant_statement'")
                #expect(parameters == grants * (statement.parametersPerGrant + 1), "\(grants) grants")
                _ = try await oauth.core.sql("DEALLOCATE grant_statement")
            }
        }
    }

    /// Statements the writer of `writers` on the test database's loop has sent.
    static func statementsSent(_ writers: GrantWriters, _ oauth: OAuthHarness) async throws -> Int {
        try await oauth.core.database.withPool { pool in writers.writer(for: pool).statementsSent }
    }

    /// `count` codes of `client`, each for a new user.
    static func codes(_ count: Int, _ oauth: OAuthHarness, _ client: OAuthHarness.Client) async throws -> [String] {
        var codes: [String] = []
        for _ in 0..<count { codes.append(try await oauth.code(for: try await oauth.user().id, client: client)) }
        return codes
    }

    /// Each of `codes` redeemed by `client` at once, with its answer.
    static func redeemTogether(
        _ codes: [String], _ oauth: OAuthHarness, _ client: OAuthHarness.Client
    ) async -> [(code: String, answer: Answer)] {
        await together(codes) { await oauth.redeem($0, client: client) }
    }

    /// `request` made with each of `secrets` at once, with its answer.
    static func together(
        _ secrets: [String], _ request: @escaping @Sendable (String) async -> Answer
    ) async -> [(String, Answer)] {
        await withTaskGroup(of: (String, Answer).self) { group in
            for secret in secrets { group.addTask { (secret, await request(secret)) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func codeGrantsRedeemedTogetherShareStatementsAndEachGetsItsOwnTokens() async throws {
        try await OAuthHarness.run(clientsCached: true) { oauth in
            let client = try await oauth.client()
            let codes = try await Self.codes(12, oauth, client)
            // The same code three times more: one redemption wins, whichever statement carries it.
            let replayed = try await Self.codes(1, oauth, client)[0]
            let writers = oauth.environment.codeGrants
            let before = try await Self.statementsSent(writers, oauth)
            let answers = await Self.redeemTogether(codes + Array(repeating: replayed, count: 4), oauth, client)
            let sent = try await Self.statementsSent(writers, oauth) - before
            #expect(sent < 16, "16 grants in \(sent) statements")
            let fresh = answers.filter { $0.0 != replayed }.map(\.1)
            #expect(fresh.allSatisfy { $0.status == 200 })
            #expect(Set(fresh.compactMap { $0["refresh_token"] }).count == 12)
            let ofReplayed = answers.filter { $0.0 == replayed }.map(\.1)
            #expect(ofReplayed.filter { $0.status == 200 }.count == 1)
            #expect(ofReplayed.filter { $0.error == "invalid_grant" }.count == 3)
            // The replays revoked what the winner got; the other grants' tokens stand.
            let winner = try #require(ofReplayed.first { $0.status == 200 }?["refresh_token"])
            #expect(await oauth.refresh(winner, client: client).error == "invalid_grant")
            #expect(await oauth.refresh(try #require(fresh[0]["refresh_token"]), client: client).status == 200)
        }
    }

    /// A statement that fails for one grant's sake (here an `auth_time` before PostgreSQL's range, 4713 BC, which a
    /// sealed code could carry only if the server sealed it) is tried again for each grant alone: the others are
    /// written.
    @Test func aGrantThatFailsItsStatementFailsAloneAndSpendsNothing() async throws {
        try await OAuthHarness.run(clientsCached: true) { oauth in
            let client = try await oauth.client()
            let codes = try await Self.codes(7, oauth, client)
            let good = try await Self.codes(1, oauth, client)[0]
            var grant = try SealedAuthorizationCode.open(good, keys: oauth.environment.codeKeys).grant
            grant.authTime = Date(timeIntervalSince1970: -1e12)
            let failing = try AuthorizationCodes.issue(grant, now: oauth.clock.now(), keys: oauth.environment.codeKeys)
            let answers = await Self.redeemTogether([codes[0], failing] + codes.dropFirst(), oauth, client)
            #expect(answers.filter { $0.0 != failing }.allSatisfy { $0.1.status == 200 })
            let failed = try #require(answers.first { $0.0 == failing }?.1)
            #expect(failed.status == 500 && failed.error == "server_error")
            let digest = try SecretDigest.of(failing)
            #expect(try await oauth.core.sql("SELECT 1 FROM oauth_spent_codes WHERE code_hash = $1", [digest]) == 0)
        }
    }

    @Test func refreshGrantsMadeTogetherShareStatementsAndEachRotatesItsOwnFamily() async throws {
        try await OAuthHarness.run(clientsCached: true) { oauth in
            let client = try await oauth.client()
            var tokens: [String] = []
            for code in try await Self.codes(12, oauth, client) {
                tokens.append(try #require(await oauth.redeem(code, client: client)["refresh_token"]))
            }
            // One family's token three times: one refresh wins, the others are reuse and revoke the family.
            let raced = tokens[0]
            let writers = oauth.environment.refreshGrants
            let before = try await Self.statementsSent(writers, oauth)
            let answers = await Self.together(tokens + [raced, raced]) { await oauth.refresh($0, client: client) }
            let sent = try await Self.statementsSent(writers, oauth) - before
            #expect(sent < 14, "14 grants in \(sent) statements")
            let others = answers.filter { $0.0 != raced }.map(\.1)
            #expect(others.allSatisfy { $0.status == 200 })
            let rotated = others.compactMap { $0["refresh_token"] }
            #expect(Set(rotated).count == 11 && Set(rotated).isDisjoint(with: tokens))
            let ofRaced = answers.filter { $0.0 == raced }.map(\.1)
            #expect(ofRaced.filter { $0.status == 200 }.count == 1)
            #expect(ofRaced.filter { $0.error == "invalid_grant" }.count == 2)
            let winner = try #require(ofRaced.first { $0.status == 200 }?["refresh_token"])
            #expect(await oauth.refresh(winner, client: client).error == "invalid_grant")
            // Every other family rotated once: its new token refreshes, its old one is reuse.
            #expect(await oauth.refresh(rotated[0], client: client).status == 200)
            #expect(await oauth.refresh(tokens[1], client: client).error == "invalid_grant")
        }
    }

    /// Two servers, each with its writers, refresh the same families at once, in opposite orders: each family rotates
    /// once, on one server or the other, and its token presented again is reuse, which revokes the family.
    @Test func twoServersRefreshingTheSameFamiliesAtOnceRotateEachOnce() async throws {
        try await OAuthHarness.run(clientsCached: true) { oauth in
            let other = OAuthHarness(core: oauth.core, clientsCached: true)
            let client = try await oauth.client()
            #expect(try await other.environment.client(client.id) != nil)
            for _ in 0..<3 {
                var issued: [String] = []
                for code in try await Self.codes(4, oauth, client) {
                    issued.append(try #require(await oauth.redeem(code, client: client)["refresh_token"]))
                }
                let tokens = issued
                async let here = Self.together(tokens) { await oauth.refresh($0, client: client) }
                async let there = Self.together(tokens.reversed()) { await other.refresh($0, client: client) }
                let answers = await here + there
                for token in tokens {
                    let ofToken = answers.filter { $0.0 == token }.map(\.1)
                    #expect(ofToken.filter { $0.status == 200 }.count == 1)
                    #expect(ofToken.filter { $0.error == "invalid_grant" }.count == 1)
                    let rotated = try #require(ofToken.first { $0.status == 200 }?["refresh_token"])
                    #expect(await other.refresh(rotated, client: client).error == "invalid_grant")
                }
            }
        }
    }
}
