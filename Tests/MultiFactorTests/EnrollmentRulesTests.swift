import FoundationEssentials
import Logging
import MultiFactor
import TOTPFactor
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraMetrics
import TesseraPostgres
import TesseraTestSupport
import Testing

/// The preconditions of enrolment (API §4 rules 2, 3 and 9), MANDATORY (rule 5) and inheritance (rule 1).
@Suite(.serialized) struct EnrollmentRulesTests {
    @Test func enrolmentNeedsAnEnabledFactorAVerifiedAddressARecentPasswordSignInAndRoom() async throws {
        try await MFAHarness.run { mfa in
            let off = try await mfa.tenant(mfa: ["state": "ENABLED"])
            let offUser = try await mfa.verifiedUser(tenantID: off)
            #expect(
                try await reason { _ = try await mfa.startTOTP(offUser.tokens.idToken, tenantID: off) }
                    == .operationNotAllowed)

            let tenant = try await mfa.tenant(mfa: MFAHarness.totp())
            let email = CoreHarness.email("unverified")
            let unverified = try await mfa.firstFactor.signUp(
                email: email, password: MFAHarness.password, displayName: nil, tenantID: tenant)
            #expect(
                try await reason { _ = try await mfa.startTOTP(unverified.idToken, tenantID: tenant) }
                    == .unverifiedEmail)

            let user = try await mfa.verifiedUser(tenantID: tenant)
            let phoneSignIn = try await mfa.core.database.withPool { pool in
                let record = try #require(try await UserStore.find(pool, id: user.tokens.localId, tenantID: tenant))
                let session = SignInSession(
                    userID: record.userID, tenantID: tenant, authTime: mfa.clock.now(), provider: "phone")
                return try await mfa.core.services.tokens.issue(pool, session: session, user: record)
            }
            #expect(
                try await reason { _ = try await mfa.startTOTP(phoneSignIn.idToken, tenantID: tenant) }
                    == .unsupportedFirstFactor)

            let started = try await mfa.startTOTP(user.tokens.idToken, tenantID: tenant)
            let (sessionInfo, secret) = (started.sessionInfo, started.secret)
            mfa.clock.advance(by: 301)
            #expect(
                try await reason { _ = try await mfa.startTOTP(user.tokens.idToken, tenantID: tenant) }
                    == .credentialTooOldLoginAgain)
            #expect(
                try await reason {
                    _ = try await mfa.finalizeTOTP(
                        user.tokens.idToken, sessionInfo: sessionInfo, code: try mfa.code(secret), tenantID: tenant)
                } == .credentialTooOldLoginAgain)

            let fresh = try await mfa.tokens(user.email, tenantID: tenant)
            for _ in 0..<MultiFactorRouter.maxEnrollments {
                _ = try await mfa.enrollTOTP(fresh.idToken, tenantID: tenant)
                mfa.clock.advance(by: 30)
            }
            let current = try await mfa.challenge(user.email, tenantID: tenant)
            #expect(current.mfaInfo.count == MultiFactorRouter.maxEnrollments)
            let signedIn = try await mfa.finishTOTP(
                current.mfaPendingCredential, enrollmentID: current.mfaInfo[0].mfaEnrollmentId,
                code: try mfa.code(try await secretOf(mfa, current.mfaInfo[0].mfaEnrollmentId)), tenantID: tenant)
            #expect(
                try await reason { _ = try await mfa.startTOTP(signedIn.idToken, tenantID: tenant) }
                    == .secondFactorLimitExceeded)
        }
    }

    @Test func enrolmentSessionsAreSingleUseBoundToTheirUserAndExpire() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp())
            let alice = try await mfa.verifiedUser(tenantID: tenant)
            let bob = try await mfa.verifiedUser(tenantID: tenant)
            let started = try await mfa.startTOTP(alice.tokens.idToken, tenantID: tenant)
            let (sessionInfo, secret) = (started.sessionInfo, started.secret)
            let finalizeBy = started.info["finalizeEnrollmentTime"]?.stringValue
            #expect(finalizeBy == RFC3339.string(from: mfa.clock.now().addingTimeInterval(600)))
            #expect(
                try await reason {
                    _ = try await mfa.finalizeTOTP(
                        bob.tokens.idToken, sessionInfo: sessionInfo, code: try mfa.code(secret), tenantID: tenant)
                } == .invalidSessionInfo)
            #expect(
                try await reason {
                    _ = try await mfa.finalizeTOTP(
                        alice.tokens.idToken, sessionInfo: sessionInfo + "x", code: try mfa.code(secret),
                        tenantID: tenant)
                } == .invalidSessionInfo)
            _ = try await mfa.finalizeTOTP(
                alice.tokens.idToken, sessionInfo: sessionInfo, code: try mfa.code(secret), tenantID: tenant)
            #expect(
                try await reason {
                    _ = try await mfa.finalizeTOTP(
                        alice.tokens.idToken, sessionInfo: sessionInfo, code: try mfa.code(secret, steps: 1),
                        tenantID: tenant)
                } == .invalidSessionInfo)

            let late = try await mfa.startTOTP(bob.tokens.idToken, tenantID: tenant)
            mfa.clock.advance(by: 350)
            let renewed = try await mfa.tokens(bob.email, tenantID: tenant)
            mfa.clock.advance(by: 251)
            #expect(
                try await reason {
                    _ = try await mfa.finalizeTOTP(
                        renewed.idToken, sessionInfo: late.sessionInfo, code: try mfa.code(late.secret),
                        tenantID: tenant)
                } == .sessionExpired)
        }
    }

    @Test func fiveWrongCodesBurnAnEnrolmentSession() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp())
            let idToken = try await mfa.verifiedUser(tenantID: tenant).tokens.idToken
            let started = try await mfa.startTOTP(idToken, tenantID: tenant)
            let sessionInfo = started.sessionInfo
            let wrongCode = try mfa.code(started.secret, steps: 20)
            for _ in 0..<5 {
                #expect(
                    try await reason {
                        _ = try await mfa.finalizeTOTP(
                            idToken, sessionInfo: sessionInfo, code: wrongCode, tenantID: tenant)
                    } == .invalidCode)
            }
            let rightCode = try mfa.code(started.secret)
            let spent = try await authError {
                _ = try await mfa.finalizeTOTP(idToken, sessionInfo: sessionInfo, code: rightCode, tenantID: tenant)
            }
            #expect(spent?.reason == .tooManyAttemptsTryLater)
            #expect(spent?.retryAfter == 600)
        }
    }

    @Test func withdrawRemovesOnlyTheCallersEnrolmentAndRevokesEveryToken() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp())
            let alice = try await mfa.verifiedUser(tenantID: tenant)
            let bob = try await mfa.verifiedUser(tenantID: tenant)
            let (aliceEnrollment, _) = try await mfa.enrollTOTP(alice.tokens.idToken, tenantID: tenant)
            #expect(
                try await reason {
                    try await mfa.router.withdrawEnrollment(
                        idToken: bob.tokens.idToken, enrollmentID: aliceEnrollment, tenantID: tenant)
                } == .mfaEnrollmentNotFound)
            mfa.clock.advance(by: 2)
            try await mfa.router.withdrawEnrollment(
                idToken: alice.tokens.idToken, enrollmentID: aliceEnrollment, tenantID: tenant)
            #expect(
                try await reason { try await mfa.core.verify(idToken: alice.tokens.idToken, tenantID: tenant) }
                    == .tokenExpired)
            #expect(
                try await reason {
                    _ = try await mfa.core.services.accounts.refresh(
                        refreshToken: alice.tokens.refreshToken, tenantID: tenant)
                } == .invalidRefreshToken)
            _ = try await mfa.tokens(alice.email, tenantID: tenant)
            try await mfa.core.verify(idToken: bob.tokens.idToken, tenantID: tenant)
        }
    }

    @Test func mandatoryAsksForAnEnrolmentAndTheTokenAllowsOnlyThat() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp(state: "MANDATORY"))
            let user = try await mfa.verifiedUser(tenantID: tenant)
            #expect(user.tokens.mfaEnrollmentRequired == true)
            #expect(try claimsOf(user.tokens.idToken)["mfa_enrollment_required"] == true)
            _ = try await mfa.firstFactor.lookup(idToken: user.tokens.idToken, tenantID: tenant)
            #expect(
                try await reason {
                    try await mfa.core.services.accounts.delete(idToken: user.tokens.idToken, tenantID: tenant)
                } == .mfaEnrollmentRequired)
            let refreshed = try await mfa.core.services.accounts.refresh(
                refreshToken: user.tokens.refreshToken, tenantID: tenant)
            #expect(refreshed.mfaEnrollmentRequired == true)
            let started = try await mfa.startTOTP(refreshed.idToken, tenantID: tenant)
            let (sessionInfo, secret) = (started.sessionInfo, started.secret)
            let enrolled = try await mfa.finalizeTOTP(
                refreshed.idToken, sessionInfo: sessionInfo, code: try mfa.code(secret), tenantID: tenant)
            #expect(enrolled.mfaEnrollmentRequired == nil)
            #expect(try claimsOf(enrolled.idToken)["mfa_enrollment_required"] == nil)
            #expect(try claimsOf(enrolled.idToken)["sign_in_second_factor"] == "totp")
            _ = try await mfa.challenge(user.email, tenantID: tenant)

            // MANDATORY with no factor to enrol asks for nothing (here only TOTP is offered, and not enabled).
            let totpOnly = MultiFactorRouter(
                services: mfa.core.services, registry: FactorRegistry([TOTPFactor()]), logger: Logger(label: "test"))
            let nothingToEnrol = try await mfa.tenant(mfa: ["state": "MANDATORY"])
            let signedUp = try await FirstFactorSignIn(router: totpOnly).signUp(
                email: CoreHarness.email(), password: MFAHarness.password, displayName: nil, tenantID: nothingToEnrol)
            #expect(signedUp.mfaEnrollmentRequired == nil)
        }
    }

    @Test func aTenantOverrideDecidesAndDisablingHidesEnrolmentsUntilReEnabled() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp())
            let user = try await mfa.verifiedUser(tenantID: tenant)
            _ = try await mfa.enrollTOTP(user.tokens.idToken, tenantID: tenant)
            _ = try await mfa.challenge(user.email, tenantID: tenant)

            try await mfa.setTenant(tenant, json: ["displayName": "MFA Test", "mfaConfig": ["state": "DISABLED"]])
            let direct = try await mfa.tokens(user.email, tenantID: tenant)
            #expect(try await mfa.firstFactor.lookup(idToken: direct.idToken, tenantID: tenant).mfaInfo.isEmpty)

            try await mfa.setTenant(tenant, json: ["displayName": "MFA Test", "mfaConfig": MFAHarness.totp()])
            let restored = try await mfa.challenge(user.email, tenantID: tenant)
            #expect(restored.mfaInfo.count == 1)

            // Without mfaConfig the tenant follows the project's settings, whatever they are now.
            try await mfa.setTenant(tenant, json: ["displayName": "MFA Test"])
            let configs = mfa.core.services.configs
            let project = try await mfa.core.database.withPool { pool in
                try await configs.effective(pool, tenantID: nil).mfa
            }
            let inherited = try await mfa.signIn(user.email, tenantID: tenant)
            if case .challenge = inherited {
                #expect(project.totpAdjacentIntervals != nil)
            } else {
                #expect(project.totpAdjacentIntervals == nil)
            }
        }
    }
}

/// The secret of a TOTP enrolment, unsealed the way the factor does (for tests that need a code of an older
/// enrolment).
func secretOf(_ mfa: MFAHarness, _ enrollmentID: String) async throws -> [UInt8] {
    let keyRing = mfa.core.services.keyRing
    return try await mfa.core.database.withPool { pool in
        let sealed = try await pool.query(
            "SELECT sealed_state FROM mfa_enrollments WHERE enrollment_id = $1", [enrollmentID])[0].decode(
                [UInt8].self, at: 0)
        return try keyRing.open(sealed, associatedData: Array(enrollmentID.utf8))
    }
}
