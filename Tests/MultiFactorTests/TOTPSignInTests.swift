import FoundationEssentials
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraMetrics
import TesseraPostgres
import TesseraTestSupport
import Testing

/// TOTP through the router with a manual clock: the window, replay protection, claims and `lastLoginAt`.
@Suite(.serialized) struct TOTPSignInTests {
    @Test func everyWindowAcceptsItsEdgesAndRefusesOneStepBeyond() async throws {
        try await MFAHarness.run { mfa in
            for window in 0...10 {
                let tenant = try await mfa.tenant(mfa: MFAHarness.totp(window))
                let (email, tokens) = try await mfa.verifiedUser(tenantID: tenant)
                let (enrollmentID, secret) = try await mfa.enrollTOTP(tokens.idToken, tenantID: tenant)
                // Far enough past the enrolment step that even now - (window + 1) is a fresh step.
                mfa.clock.advance(by: Double(30 * (2 * window + 2)))
                for (early, late) in [(-(window + 1), -window), (window + 1, window)] {
                    // A step on between the two rounds, so that with window 0 the second code is a fresh one.
                    if early > 0 { mfa.clock.advance(by: 30) }
                    let challenge = try await mfa.challenge(email, tenantID: tenant)
                    #expect(
                        try await reason {
                            _ = try await mfa.finishTOTP(
                                challenge.mfaPendingCredential, enrollmentID: enrollmentID,
                                code: try mfa.code(secret, steps: early), tenantID: tenant)
                        } == .invalidCode, "window \(window): step \(early) must be refused")
                    _ = try await mfa.finishTOTP(
                        challenge.mfaPendingCredential, enrollmentID: enrollmentID,
                        code: try mfa.code(secret, steps: late), tenantID: tenant)
                }
            }
        }
    }

    @Test func aCodeIsNeverAcceptedTwiceNorAnEarlierOne() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp(5))
            let (email, tokens) = try await mfa.verifiedUser(tenantID: tenant)
            let started = try await mfa.startTOTP(tokens.idToken, tenantID: tenant)
            let (sessionInfo, secret) = (started.sessionInfo, started.secret)
            let enrolmentCode = try mfa.code(secret)
            let enrolled = try await mfa.finalizeTOTP(
                tokens.idToken, sessionInfo: sessionInfo, code: enrolmentCode, tenantID: tenant)
            let enrollmentID = try #require(enrolled.mfaEnrollmentId)
            let sameStep = try await mfa.challenge(email, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await mfa.finishTOTP(
                        sameStep.mfaPendingCredential, enrollmentID: enrollmentID, code: enrolmentCode, tenantID: tenant
                    )
                } == .invalidCode)
            _ = try await mfa.finishTOTP(
                sameStep.mfaPendingCredential, enrollmentID: enrollmentID, code: try mfa.code(secret, steps: 2),
                tenantID: tenant)
            for replay in [2, 1] {
                let again = try await mfa.challenge(email, tenantID: tenant)
                #expect(
                    try await reason {
                        _ = try await mfa.finishTOTP(
                            again.mfaPendingCredential, enrollmentID: enrollmentID,
                            code: try mfa.code(secret, steps: replay), tenantID: tenant)
                    } == .invalidCode)
            }
        }
    }

    @Test func oneCodeGivenToTwoSignInsAtOnceSignsInOneAndConsumesNothingOfTheOther() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp(1))
            let (email, tokens) = try await mfa.verifiedUser(tenantID: tenant)
            let (enrollmentID, secret) = try await mfa.enrollTOTP(tokens.idToken, tenantID: tenant)
            mfa.clock.advance(by: 60)
            let first = try await mfa.challenge(email, tenantID: tenant)
            let second = try await mfa.challenge(email, tenantID: tenant)
            let code = try mfa.code(secret)
            async let one = try outcome {
                try await mfa.finishTOTP(
                    first.mfaPendingCredential, enrollmentID: enrollmentID, code: code, tenantID: tenant)
            }
            async let other = try outcome {
                try await mfa.finishTOTP(
                    second.mfaPendingCredential, enrollmentID: enrollmentID, code: code, tenantID: tenant)
            }
            let outcomes = try await [one, other]
            #expect(outcomes.filter { $0 == nil }.count == 1)
            #expect(outcomes.filter { $0 == .invalidCode }.count == 1)
            // The refused sign-in's credential was not consumed: a later code finishes it.
            let loser = outcomes[0] == nil ? second : first
            _ = try await mfa.finishTOTP(
                loser.mfaPendingCredential, enrollmentID: enrollmentID, code: try mfa.code(secret, steps: 1),
                tenantID: tenant)
        }
    }

    /// nil when `body` succeeds, else the reason it was refused with (other errors are thrown).
    private func outcome(_ body: () async throws -> TokenResult) async throws -> AuthReason? {
        do {
            _ = try await body()
            return nil
        } catch let error as AuthError {
            return error.reason
        }
    }

    @Test func theSecondFactorIsNamedInTheTokenAndMovesLastLoginAt() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp(1))
            let (email, tokens) = try await mfa.verifiedUser(tenantID: tenant)
            let (enrollmentID, secret) = try await mfa.enrollTOTP(tokens.idToken, tenantID: tenant)
            let lastLogin = try await lastLoginAt(mfa, tokens.localId)
            mfa.clock.advance(by: 60)
            let challenge = try await mfa.challenge(email, tenantID: tenant)
            #expect(challenge.localId == tokens.localId)
            #expect(challenge.mfaInfo.map(\.mfaEnrollmentId) == [enrollmentID])
            #expect(challenge.mfaInfo.first?.factorInfo == ["totpInfo": [:]])
            #expect(try await lastLoginAt(mfa, tokens.localId) == lastLogin)
            let signedIn = try await mfa.finishTOTP(
                challenge.mfaPendingCredential, enrollmentID: enrollmentID,
                code: try mfa.code(secret), tenantID: tenant)
            let claims = try claimsOf(signedIn.idToken)
            #expect(claims["sign_in_second_factor"] == "totp")
            #expect(claims["second_factor_identifier"] == .string(enrollmentID))
            #expect(claims["sign_in_provider"] == "password")
            #expect(try await lastLoginAt(mfa, tokens.localId) == mfa.clock.now())
            let refreshed = try await mfa.core.services.accounts.refresh(
                refreshToken: signedIn.refreshToken, tenantID: tenant)
            #expect(try claimsOf(refreshed.idToken)["sign_in_second_factor"] == "totp")
            #expect(
                try await reason {
                    _ = try await mfa.finishTOTP(
                        challenge.mfaPendingCredential, enrollmentID: enrollmentID,
                        code: try mfa.code(secret, steps: 1),
                        tenantID: tenant)
                } == .invalidMFAPendingCredential)
        }
    }

    @Test func twoServersRacingOneCodeLetExactlyOneThrough() async throws {
        try await MFAHarness.run { first in
            try await MFAHarness.run { second in
                second.clock.advance(by: first.clock.now().timeIntervalSince(second.clock.now()))
                let tenant = try await first.tenant(mfa: MFAHarness.totp(10))
                let (email, tokens) = try await first.verifiedUser(tenantID: tenant)
                let (enrollmentID, secret) = try await first.enrollTOTP(tokens.idToken, tenantID: tenant)
                for step in 1...8 {
                    let one = try await first.challenge(email, tenantID: tenant)
                    let other = try await second.challenge(email, tenantID: tenant)
                    let code = try first.code(secret, steps: step)
                    async let a = reason {
                        _ = try await first.finishTOTP(
                            one.mfaPendingCredential, enrollmentID: enrollmentID, code: code, tenantID: tenant)
                    }
                    async let b = reason {
                        _ = try await second.finishTOTP(
                            other.mfaPendingCredential, enrollmentID: enrollmentID, code: code, tenantID: tenant)
                    }
                    let outcomes = [try await a, try await b]
                    #expect(outcomes.filter { $0 == nil }.count == 1, "step \(step): \(outcomes)")
                    #expect(outcomes.filter { $0 == .invalidCode }.count == 1, "step \(step): \(outcomes)")
                }
            }
        }
    }
}

/// The claims of a JWT, unchecked.
func claimsOf(_ token: String) throws -> JSONObject {
    let payload = token.split(separator: ".", omittingEmptySubsequences: false)[1]
    return try #require(try JSONValue(parsing: try Base64URL.decode(String(payload))).objectValue)
}

/// The stored `last_login_at` of `userID`.
func lastLoginAt(_ mfa: MFAHarness, _ userID: String) async throws -> Date? {
    try await mfa.core.database.withPool { pool in
        try await pool.query("SELECT last_login_at FROM users WHERE user_id = $1", [userID])[0].decode(
            Date?.self, at: 0)
    }
}
