import FactorServices
import FoundationEssentials
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraTestSupport
import Testing

/// The router with a factor that runs as a factor service on loopback: enrolment and sign-in end to end, the
/// router's counters and replay marks in charge, and the service's failures never counted against the user.
@Suite(.serialized) struct RemoteFactorTests {
    @Test func aRemoteFactorEnrolsAndSignsInAndTheRouterKeepsItsStateAndReplayMarks() async throws {
        try await RemoteFactorHarness.run { remote in
            let tenant = try await remote.tenant()
            let user = try await remote.user(tenantID: tenant)
            let enrolled = try await remote.enroll(user.idToken, tenantID: tenant)
            // The router keeps the factor's secret sealed, and the step of the enrolment code as the replay mark.
            #expect(
                try await remote.core.sql(
                    "SELECT 1 FROM mfa_enrollments WHERE enrollment_id = $1 AND sealed_state IS NOT NULL"
                        + " AND replay_mark IS NOT NULL AND factor = $2", [enrolled.id, remote.factorID]) == 1)

            let credential = try await remote.challenge(user.email, tenantID: tenant)
            // The enrolment code's step was recorded: the same code is refused, and the attempt counted.
            #expect(
                try await reason {
                    _ = try await remote.finish(
                        credential, enrollmentID: enrolled.id, code: try remote.code(enrolled.secret), tenantID: tenant)
                } == .invalidCode)
            let tokens = try await remote.finish(
                credential, enrollmentID: enrolled.id, code: try remote.code(enrolled.secret, steps: 1),
                tenantID: tenant)
            let claims = try claims(tokens.idToken)
            #expect(claims["sign_in_second_factor"]?.stringValue == remote.factorID)
            #expect(claims["second_factor_identifier"]?.stringValue == enrolled.id)

            // A later sign-in cannot reuse that step, across a fresh credential.
            let again = try await remote.challenge(user.email, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await remote.finish(
                        again, enrollmentID: enrolled.id, code: try remote.code(enrolled.secret, steps: 1),
                        tenantID: tenant)
                } == .invalidCode)
        }
    }

    @Test func theRoutersAttemptLimitHoldsAgainstARemoteFactor() async throws {
        try await RemoteFactorHarness.run { remote in
            let tenant = try await remote.tenant()
            let user = try await remote.user(tenantID: tenant)
            let enrolled = try await remote.enroll(user.idToken, tenantID: tenant)
            let credential = try await remote.challenge(user.email, tenantID: tenant)
            for _ in 0..<5 {
                #expect(
                    try await reason {
                        _ = try await remote.finish(
                            credential, enrollmentID: enrolled.id, code: "000000", tenantID: tenant)
                    } == .invalidCode)
            }
            // The sixth attempt is refused before the service is asked, even with the right code.
            #expect(
                try await reason {
                    _ = try await remote.finish(
                        credential, enrollmentID: enrolled.id, code: try remote.code(enrolled.secret, steps: 1),
                        tenantID: tenant)
                } == .tooManyAttemptsTryLater)
        }
    }

    @Test func aServiceThatIsDownFailsClearlyAndGivesEveryAttemptBack() async throws {
        try await RemoteFactorHarness.run { remote in
            let tenant = try await remote.tenant()
            let user = try await remote.user(tenantID: tenant)
            let enrolled = try await remote.enroll(user.idToken, tenantID: tenant)
            let credential = try await remote.challenge(user.email, tenantID: tenant)
            await remote.server.shutdown(gracePeriod: .zero)
            for _ in 0..<7 {
                #expect(
                    try await reason {
                        _ = try await remote.finish(
                            credential, enrollmentID: enrolled.id, code: try remote.code(enrolled.secret, steps: 1),
                            tenantID: tenant)
                    } == .factorServiceUnavailable)
            }
            let hash = try SecretDigest.of(credential)
            #expect(
                try await remote.core.sql(
                    "SELECT 1 FROM mfa_pending_credentials WHERE handle_hash = $1 AND attempts = 0", [hash]) == 1)
            #expect(
                try await remote.core.sql(
                    "SELECT 1 FROM mfa_enrollments WHERE enrollment_id = $1 AND failures = 0 AND locked_until IS NULL",
                    [enrolled.id]) == 1)
            // After five failures the breaker opens: the service is reported down.
            #expect(remote.health.states().contains { $0.factor == remote.factorID && !$0.up })
        }
    }

    @Test func builtInFactorsKeepWorkingWhileAServiceIsDown() async throws {
        try await RemoteFactorHarness.run { remote in
            let tenant = try await remote.tenant()
            let user = try await remote.user(tenantID: tenant)
            await remote.server.shutdown(gracePeriod: .zero)
            let started = try await remote.router.startEnrollment(
                EnrollmentStartRequest(
                    idToken: user.idToken, tenantID: tenant, languageCode: nil, factor: "totp", info: [:]))
            let info = try #require(started.result["totpSessionInfo"]?.objectValue)
            let secret = try Base32.decode(try #require(info["sharedSecretKey"]?.stringValue))
            let result = try await remote.router.finalizeEnrollment(
                EnrollmentFinalizeRequest(
                    idToken: user.idToken, tenantID: tenant, displayName: nil, factor: "totp",
                    info: [
                        "sessionInfo": info["sessionInfo"] ?? .null,
                        "verificationCode": .string(try remote.code(secret)),
                    ]))
            #expect(result.mfaEnrollmentId != nil)
        }
    }

    @Test func aTenantScopedKeyCannotRegisterOrReadServices() async throws {
        try await RemoteFactorHarness.run { remote in
            let tenantKey = AuditLog.Actor(
                principal: AdminPrincipal(keyID: "tenant-key", scope: .tenant("t1")), method: "test", requestID: "r")
            let registering = try await reason {
                _ = try await remote.admin.register(
                    ["endpoints": .array([.string(remote.endpoint)])], secret: nil, actor: tenantKey)
            }
            #expect(registering == .permissionDenied)
            let listing = try await reason { _ = try await remote.admin.list(actor: tenantKey.principal) }
            #expect(listing == .permissionDenied)
            let deleting = try await reason {
                try await remote.admin.delete(factorID: remote.factorID, actor: tenantKey)
            }
            #expect(deleting == .permissionDenied)
            #expect(
                try await remote.core.sql("SELECT 1 FROM factor_services WHERE factor_id = $1", [remote.factorID]) == 1)
        }
    }

    @Test func registrationRefusesTakenIdsBadEndpointsAndSecretsAndIsAudited() async throws {
        try await RemoteFactorHarness.run { remote in
            let key = RemoteFactorHarness.projectKey
            #expect(
                try await reason {
                    _ = try await remote.admin.register(
                        ["endpoints": .array([.string(remote.endpoint)])], secret: nil, actor: key)
                } == .factorServiceExists)
            for endpoints: JSONValue in [
                [], ["http://10.0.0.1/rpc"], ["ftp://127.0.0.1/rpc"], ["http://u@127.0.0.1/rpc"], [1], "x",
            ] {
                #expect(
                    try await reason {
                        _ = try await remote.admin.register(["endpoints": endpoints], secret: nil, actor: key)
                    } == .invalidArgument)
            }
            #expect(
                try await reason {
                    _ = try await remote.admin.register(
                        ["endpoints": .array([.string(remote.endpoint)]), "timeoutMs": 50], secret: nil, actor: key)
                } == .invalidArgument)
            #expect(
                try await reason {
                    _ = try await remote.admin.register(
                        ["endpoints": .array([.string(remote.endpoint)])], secret: "short", actor: key)
                } == .invalidArgument)
            // Nothing answers on port 9 of loopback: the service cannot be described.
            #expect(
                try await reason {
                    _ = try await remote.admin.register(
                        ["endpoints": ["http://127.0.0.1:9/rpc"]], secret: nil, actor: key)
                } == .factorServiceUnavailable)
            #expect(
                try await remote.core.sql(
                    "SELECT 1 FROM audit_events WHERE target = $1 AND method = 'test'",
                    ["factorServices/\(remote.factorID)"]) >= 1)
            let shown = try await remote.admin.get(factorID: remote.factorID, actor: key.principal)
            #expect(shown["descriptor"]?["id"]?.stringValue == remote.factorID)
            #expect(shown["secret"] == nil)
        }
    }

    @Test func aChangeOnOneServerIsSeenByAnotherWithinTheRefreshInterval() async throws {
        try await RemoteFactorHarness.run(refreshInterval: .milliseconds(300)) { remote in
            let tenant = try await remote.tenant()
            let user = try await remote.user(tenantID: tenant)
            #expect(try await remote.router.factors().factor(remote.factor) != nil)
            // Another server's admin removes it (straight in the table): this server still offers its copy, then
            // drops it once the copy is older than the interval.
            try await remote.core.sql("DELETE FROM factor_services WHERE factor_id = $1", [remote.factorID])
            try await Task.sleep(for: .milliseconds(400))
            #expect(try await remote.router.factors().factor(remote.factor) == nil)
            #expect(
                try await reason {
                    _ = try await remote.router.startEnrollment(
                        EnrollmentStartRequest(
                            idToken: user.idToken, tenantID: tenant, languageCode: nil, factor: remote.factor, info: [:]
                        ))
                } == .operationNotAllowed)
        }
    }

    private func claims(_ token: String) throws -> JSONObject {
        let payload = token.split(separator: ".", omittingEmptySubsequences: false)[1]
        return try #require(try JSONValue(parsing: try Base64URL.decode(String(payload))).objectValue)
    }
}
