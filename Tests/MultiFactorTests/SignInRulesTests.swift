import FoundationEssentials
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraMetrics
import TesseraPostgres
import TesseraTestSupport
import Testing

/// Pending credentials (API §4 rule 6) and brute-force limits (rule 7) of `mfaSignIn.*`.
@Suite(.serialized) struct SignInRulesTests {
    @Test func pendingCredentialsAreBoundExpireAndNameOnlyTheUsersEnrolments() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp())
            let other = try await mfa.tenant(mfa: MFAHarness.totp())
            let alice = try await mfa.verifiedUser(tenantID: tenant)
            let bob = try await mfa.verifiedUser(tenantID: tenant)
            let (aliceEnrollment, secret) = try await mfa.enrollTOTP(alice.tokens.idToken, tenantID: tenant)
            let (bobEnrollment, _) = try await mfa.enrollTOTP(bob.tokens.idToken, tenantID: tenant)
            let challenge = try await mfa.challenge(alice.email, tenantID: tenant)
            let credential = challenge.mfaPendingCredential
            let code = try mfa.code(secret, steps: 1)
            #expect(
                try await reason {
                    _ = try await mfa.finishTOTP(credential, enrollmentID: bobEnrollment, code: code, tenantID: tenant)
                } == .mfaEnrollmentNotFound)
            #expect(
                try await reason {
                    _ = try await mfa.finishTOTP(credential, enrollmentID: nil, code: code, tenantID: tenant)
                } == .missingMFAEnrollmentID)
            #expect(
                try await reason {
                    _ = try await mfa.finishTOTP(credential, enrollmentID: aliceEnrollment, code: code, tenantID: other)
                } == .tenantIDMismatch)
            #expect(
                try await reason {
                    _ = try await mfa.finishTOTP(
                        credential + "x", enrollmentID: aliceEnrollment, code: code, tenantID: tenant)
                } == .invalidMFAPendingCredential)
            #expect(
                try await reason {
                    _ = try await mfa.router.startSignIn(
                        SignInStartRequest(
                            pendingCredential: credential, enrollmentID: aliceEnrollment, tenantID: tenant,
                            languageCode: nil, info: nil))
                } == .invalidArgument)
            mfa.clock.advance(by: 601)
            #expect(
                try await reason {
                    _ = try await mfa.finishTOTP(
                        credential, enrollmentID: aliceEnrollment, code: try mfa.code(secret), tenantID: tenant)
                } == .sessionExpired)
        }
    }

    @Test(arguments: ["revokeTokens", "disable", "password"])
    func revokingTheUsersTokensEndsTheirPendingSignIns(_ how: String) async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp())
            let alice = try await mfa.verifiedUser(tenantID: tenant)
            let (enrollment, secret) = try await mfa.enrollTOTP(alice.tokens.idToken, tenantID: tenant)
            let credential = try await mfa.challenge(alice.email, tenantID: tenant).mfaPendingCredential
            let actor = AuditLog.Actor(
                principal: AdminPrincipal(keyID: "mfa-test", scope: .project), method: "users.\(how)", requestID: "r")
            let admin = mfa.core.services.usersAdmin
            switch how {
            case "revokeTokens":
                try await admin.revokeTokens(tenantID: tenant, localID: alice.tokens.localId, actor: actor)
            case "disable":
                _ = try await admin.update(
                    tenantID: tenant, localID: alice.tokens.localId, UserChanges(disabled: true), actor: actor)
            default:
                _ = try await admin.update(
                    tenantID: tenant, localID: alice.tokens.localId, UserChanges(password: "another password 1"),
                    actor: actor)
            }
            // Before, the credential issued ahead of the revocation still finished a sign-in for 600 s.
            #expect(
                try await reason {
                    _ = try await mfa.finishTOTP(
                        credential, enrollmentID: enrollment, code: try mfa.code(secret, steps: 1), tenantID: tenant)
                } == .invalidMFAPendingCredential)
        }
    }

    @Test func fiveWrongCodesBurnACredentialAndTenInARowLockTheEnrolment() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp(1))
            let user = try await mfa.verifiedUser(tenantID: tenant)
            let (enrollmentID, secret) = try await mfa.enrollTOTP(user.tokens.idToken, tenantID: tenant)
            let wrong = try mfa.code(secret, steps: 5)
            let first = try await mfa.challenge(user.email, tenantID: tenant)
            for _ in 0..<5 {
                #expect(
                    try await reason {
                        _ = try await mfa.finishTOTP(
                            first.mfaPendingCredential, enrollmentID: enrollmentID, code: wrong, tenantID: tenant)
                    } == .invalidCode)
            }
            let burned = try await authError {
                _ = try await mfa.finishTOTP(
                    first.mfaPendingCredential, enrollmentID: enrollmentID, code: try mfa.code(secret, steps: 1),
                    tenantID: tenant)
            }
            #expect(burned?.reason == .tooManyAttemptsTryLater)
            #expect(burned?.retryAfter == 600)

            let second = try await mfa.challenge(user.email, tenantID: tenant)
            for _ in 0..<5 {
                #expect(
                    try await reason {
                        _ = try await mfa.finishTOTP(
                            second.mfaPendingCredential, enrollmentID: enrollmentID, code: wrong, tenantID: tenant)
                    } == .invalidCode)
            }
            mfa.clock.advance(by: 100)
            let third = try await mfa.challenge(user.email, tenantID: tenant)
            let locked = try await authError {
                _ = try await mfa.finishTOTP(
                    third.mfaPendingCredential, enrollmentID: enrollmentID, code: try mfa.code(secret, steps: 1),
                    tenantID: tenant)
            }
            #expect(locked?.reason == .tooManyAttemptsTryLater)
            #expect(locked?.retryAfter == 800)
            mfa.clock.advance(by: 800)
            let unlocked = try await mfa.challenge(user.email, tenantID: tenant)
            _ = try await mfa.finishTOTP(
                unlocked.mfaPendingCredential, enrollmentID: enrollmentID, code: try mfa.code(secret), tenantID: tenant)
            #expect(mfa.metrics.render().contains(#"outcome="TOO_MANY_ATTEMPTS_TRY_LATER""#))
        }
    }

    @Test func locksGrowLongerAndTheHundredthFailureBlocksUntilAnotherFactorSucceeds() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp(1))
            let user = try await mfa.verifiedUser(tenantID: tenant)
            let (target, secret) = try await mfa.enrollTOTP(user.tokens.idToken, tenantID: tenant)
            let (other, otherSecret) = try await mfa.enrollTOTP(user.tokens.idToken, tenantID: tenant)
            var failures = 0
            /// Ten wrong codes at `target` (two pending credentials of five attempts); returns what an attempt then says.
            func tenWrong() async throws -> AuthError? {
                for _ in 0..<2 {
                    let challenge = try await mfa.challenge(user.email, tenantID: tenant)
                    for _ in 0..<5 {
                        let wrong = try mfa.code(secret, steps: 7)
                        #expect(
                            try await reason {
                                _ = try await mfa.finishTOTP(
                                    challenge.mfaPendingCredential, enrollmentID: target, code: wrong, tenantID: tenant)
                            } == .invalidCode)
                        failures += 1
                    }
                }
                let next = try await mfa.challenge(user.email, tenantID: tenant)
                return try await authError {
                    _ = try await mfa.finishTOTP(
                        next.mfaPendingCredential, enrollmentID: target, code: try mfa.code(secret), tenantID: tenant)
                }
            }
            // Before, every lock reset the count: 900 s each time, forever. Now each lock is twice the last.
            var expected = 900
            while failures < 90 {
                let locked = try await tenWrong()
                #expect(locked?.reason == .tooManyAttemptsTryLater)
                #expect(locked?.retryAfter == min(expected, 86_400), "after \(failures) failures")
                mfa.clock.advance(by: TimeInterval(min(expected, 86_400)))
                expected *= 2
            }
            // The hundredth blocks the enrolment however long one waits, even with the right code.
            let blocked = try await tenWrong()
            #expect(blocked?.reason == .tooManyAttemptsTryLater && blocked?.retryAfter == nil)
            mfa.clock.advance(by: 30 * 86_400)
            let stillBlocked = try await mfa.challenge(user.email, tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await mfa.finishTOTP(
                        stillBlocked.mfaPendingCredential, enrollmentID: target, code: try mfa.code(secret),
                        tenantID: tenant)
                } == .tooManyAttemptsTryLater)
            // A sign-in with the user's other factor clears it.
            let withOther = try await mfa.challenge(user.email, tenantID: tenant)
            _ = try await mfa.finishTOTP(
                withOther.mfaPendingCredential, enrollmentID: other, code: try mfa.code(otherSecret), tenantID: tenant)
            mfa.clock.advance(by: 60)
            let again = try await mfa.challenge(user.email, tenantID: tenant)
            _ = try await mfa.finishTOTP(
                again.mfaPendingCredential, enrollmentID: target, code: try mfa.code(secret), tenantID: tenant)
        }
    }

    @Test func aRightCodeClearsTheConsecutiveFailures() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp(1))
            let user = try await mfa.verifiedUser(tenantID: tenant)
            let (enrollmentID, secret) = try await mfa.enrollTOTP(user.tokens.idToken, tenantID: tenant)
            let wrong = try mfa.code(secret, steps: 20)
            for _ in 1...3 {
                mfa.clock.advance(by: 30)
                let challenge = try await mfa.challenge(user.email, tenantID: tenant)
                for _ in 0..<4 {
                    _ = try await reason {
                        _ = try await mfa.finishTOTP(
                            challenge.mfaPendingCredential, enrollmentID: enrollmentID, code: wrong,
                            tenantID: tenant)
                    }
                }
                _ = try await mfa.finishTOTP(
                    challenge.mfaPendingCredential, enrollmentID: enrollmentID, code: try mfa.code(secret),
                    tenantID: tenant)
            }
        }
    }
}
