import FoundationEssentials
import MultiFactor
import TesseraCore
import TesseraJSON
import TesseraPostgres
import TesseraTestSupport
import Testing

/// Recovery codes through the router: enrolled beside another factor, shown once, each used once, a new set voiding
/// the old, audited, and clearing the lock of the other factor.
@Suite(.serialized) struct RecoveryCodeTests {
    /// TOTP and recovery codes enabled.
    static let config: JSONValue = [
        "state": "ENABLED",
        "providerConfigs": [
            ["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 1]],
            ["state": "ENABLED", "recoveryCodeProviderConfig": [:]],
        ],
    ]

    /// Starts and finalizes a set for the user of `idToken`; returns the codes and the enrolment id.
    static func enroll(
        _ mfa: MFAHarness, _ idToken: String, tenantID: String
    ) async throws
        -> (codes: [String], enrollmentID: String)
    {
        let started = try await mfa.router.startEnrollment(
            EnrollmentStartRequest(
                idToken: idToken, tenantID: tenantID, languageCode: nil, factor: "recovery", info: [:]))
        let info = try #require(started.result["recoveryCodeSessionInfo"]?.objectValue)
        let listed = try #require(info["codes"]?.arrayValue)
        let codes = listed.compactMap(\.stringValue)
        let sessionInfo = try #require(info["sessionInfo"]?.stringValue)
        #expect(
            try await reason {
                _ = try await mfa.router.finalizeEnrollment(
                    EnrollmentFinalizeRequest(
                        idToken: idToken, tenantID: tenantID, displayName: nil, factor: "recovery",
                        info: ["sessionInfo": .string(sessionInfo), "code": "0000-0000-0000"]))
            } == .invalidCode)
        let done = try await mfa.router.finalizeEnrollment(
            EnrollmentFinalizeRequest(
                idToken: idToken, tenantID: tenantID, displayName: nil, factor: "recovery",
                info: ["sessionInfo": .string(sessionInfo), "code": .string(codes[3])]))
        return (codes, try #require(done.mfaEnrollmentId))
    }

    /// `mfaSignIn.finalize` with a recovery code.
    static func signIn(
        _ mfa: MFAHarness, _ email: String, code: String, tenantID: String, enrollmentID: String
    )
        async throws -> TokenResult
    {
        let challenge = try await mfa.challenge(email, tenantID: tenantID)
        return try await mfa.router.finalizeSignIn(
            SignInFinalizeRequest(
                pendingCredential: challenge.mfaPendingCredential, enrollmentID: enrollmentID, tenantID: tenantID,
                factor: "recovery", info: ["code": .string(code)]))
    }

    /// The rows of `text`, every column read as text.
    static func rows(
        _ mfa: MFAHarness, _ text: String, _ parameters: [any PostgresEncodable & Sendable]
    ) async throws
        -> [[String?]]
    {
        try await mfa.core.database.withPool { pool in
            let result = try await pool.query(text, parameters)
            return try result.rows.map { row in
                try (0..<result.columns.count).map { try row.decode(String?.self, at: $0) }
            }
        }
    }

    /// What the owner sees of the set.
    static func remaining(_ mfa: MFAHarness, _ idToken: String, tenantID: String) async throws -> Int? {
        let user = try await mfa.firstFactor.lookup(idToken: idToken, tenantID: tenantID)
        let set = user.mfaInfo.first { $0.factorID == "recovery" }
        return set?.factorInfo["recoveryCodeInfo"]?.objectValue?["remaining"]?.intValue
    }

    @Test func aSetIsOnlyMadeBesideAnotherFactorAndItsTenCodesAreDistinct() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: Self.config)
            let user = try await mfa.verifiedUser(tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await mfa.router.startEnrollment(
                        EnrollmentStartRequest(
                            idToken: user.tokens.idToken, tenantID: tenant, languageCode: nil, factor: "recovery",
                            info: [:]))
                } == .operationNotAllowed)
            _ = try await mfa.enrollTOTP(user.tokens.idToken, tenantID: tenant)
            let (codes, _) = try await Self.enroll(mfa, user.tokens.idToken, tenantID: tenant)
            #expect(codes.count == 10 && Set(codes).count == 10)
            #expect(codes.allSatisfy { $0.count == 14 && $0.split(separator: "-").count == 3 })
            #expect(try await Self.remaining(mfa, user.tokens.idToken, tenantID: tenant) == 10)
            // The codes are stored sealed, never in the clear.
            let stored = try await Self.rows(
                mfa,
                "SELECT encode(sealed_state, 'hex') FROM mfa_enrollments WHERE factor = 'recovery' AND user_id = $1",
                [user.tokens.localId])
            #expect(stored.count == 1)
            let hex = Array(stored.first?.first??.utf8 ?? "".utf8)
            for code in codes {
                let codeHex = Array(code.utf8).map { String($0, radix: 16) }.joined()
                #expect(!String(decoding: hex, as: UTF8.self).contains(codeHex))
            }
        }
    }

    @Test func eachCodeWorksOnceTheCountGoesDownAndEveryUseIsAudited() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: Self.config)
            let user = try await mfa.verifiedUser(tenantID: tenant)
            _ = try await mfa.enrollTOTP(user.tokens.idToken, tenantID: tenant)
            let (codes, set) = try await Self.enroll(mfa, user.tokens.idToken, tenantID: tenant)
            let signedIn = try await Self.signIn(mfa, user.email, code: codes[0], tenantID: tenant, enrollmentID: set)
            #expect(signedIn.idToken.isEmpty == false)
            #expect(
                try await reason {
                    _ = try await Self.signIn(mfa, user.email, code: codes[0], tenantID: tenant, enrollmentID: set)
                } == .invalidCode)
            // Typed loosely: upper case, without dashes, O for 0 and I for 1.
            let loose = codes[1].uppercased().replacing("-", with: " ").replacing("0", with: "O")
                .replacing("1", with: "I")
            _ = try await Self.signIn(mfa, user.email, code: loose, tenantID: tenant, enrollmentID: set)
            // The code shown at enrolment confirmation stays usable.
            _ = try await Self.signIn(mfa, user.email, code: codes[3], tenantID: tenant, enrollmentID: set)
            #expect(try await Self.remaining(mfa, signedIn.idToken, tenantID: tenant) == 7)
            // The stored view follows, for every reader of it (an admin's users.get).
            let stored = try await Self.rows(
                mfa,
                "SELECT public_info->'recoveryCodeInfo'->>'remaining' FROM mfa_enrollments WHERE enrollment_id = $1",
                [set])
            #expect(stored == [["7"]])
            let audited = try await Self.rows(
                mfa,
                "SELECT actor_key_id, method, after->'factorInfo'->'recoveryCodeInfo'->>'remaining' FROM audit_events "
                    + "WHERE target = $1 ORDER BY occurred_at, after->'factorInfo'->'recoveryCodeInfo'->>'remaining' DESC",
                ["users/\(user.tokens.localId)/mfaEnrollments/\(set)"])
            #expect(
                audited == [
                    ["user:\(user.tokens.localId)", "mfaSignIn.finalize", "9"],
                    ["user:\(user.tokens.localId)", "mfaSignIn.finalize", "8"],
                    ["user:\(user.tokens.localId)", "mfaSignIn.finalize", "7"],
                ])
        }
    }

    @Test func aNewSetVoidsTheOldOne() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: Self.config)
            let user = try await mfa.verifiedUser(tenantID: tenant)
            _ = try await mfa.enrollTOTP(user.tokens.idToken, tenantID: tenant)
            let (old, oldSet) = try await Self.enroll(mfa, user.tokens.idToken, tenantID: tenant)
            let (new, newSet) = try await Self.enroll(mfa, user.tokens.idToken, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await Self.signIn(mfa, user.email, code: old[0], tenantID: tenant, enrollmentID: oldSet)
                } == .mfaEnrollmentNotFound)
            #expect(
                try await reason {
                    _ = try await Self.signIn(mfa, user.email, code: old[0], tenantID: tenant, enrollmentID: newSet)
                } == .invalidCode)
            _ = try await Self.signIn(mfa, user.email, code: new[0], tenantID: tenant, enrollmentID: newSet)
            let sets = try await Self.rows(
                mfa, "SELECT count(*)::text FROM mfa_enrollments WHERE factor = 'recovery' AND user_id = $1",
                [user.tokens.localId])
            #expect(sets == [["1"]])
        }
    }

    @Test func racingUsesOfOneSetNeverLoseAUse() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: Self.config)
            let user = try await mfa.verifiedUser(tenantID: tenant)
            _ = try await mfa.enrollTOTP(user.tokens.idToken, tenantID: tenant)
            let (codes, set) = try await Self.enroll(mfa, user.tokens.idToken, tenantID: tenant)
            let outcomes = try await withThrowingTaskGroup(of: AuthReason?.self) { group in
                for code in codes[0..<4] {
                    group.addTask {
                        try await reason {
                            _ = try await Self.signIn(mfa, user.email, code: code, tenantID: tenant, enrollmentID: set)
                        }
                    }
                }
                return try await group.reduce(into: [AuthReason?]()) { $0.append($1) }
            }
            let accepted = outcomes.filter { $0 == nil }.count
            #expect(accepted >= 1 && outcomes.allSatisfy { $0 == nil || $0 == .invalidCode })
            // Whatever raced, the set counts exactly the uses that were accepted.
            #expect(try await Self.remaining(mfa, user.tokens.idToken, tenantID: tenant) == 10 - accepted)
        }
    }

    @Test func aRecoveryCodeClearsTheBlockOfTheOtherFactor() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: Self.config)
            let user = try await mfa.verifiedUser(tenantID: tenant)
            let (totp, secret) = try await mfa.enrollTOTP(user.tokens.idToken, tenantID: tenant)
            let (codes, set) = try await Self.enroll(mfa, user.tokens.idToken, tenantID: tenant)
            try await mfa.core.sql("UPDATE mfa_enrollments SET failures = 100 WHERE enrollment_id = $1", [totp])
            mfa.clock.advance(by: 60)
            let blocked = try await mfa.challenge(user.email, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await mfa.finishTOTP(
                        blocked.mfaPendingCredential, enrollmentID: totp, code: try mfa.code(secret), tenantID: tenant)
                } == .tooManyAttemptsTryLater)
            _ = try await Self.signIn(mfa, user.email, code: codes[5], tenantID: tenant, enrollmentID: set)
            let again = try await mfa.challenge(user.email, tenantID: tenant)
            _ = try await mfa.finishTOTP(
                again.mfaPendingCredential, enrollmentID: totp, code: try mfa.code(secret), tenantID: tenant)
        }
    }
}
