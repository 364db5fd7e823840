import FoundationEssentials
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraMetrics
import TesseraPostgres
import TesseraTestSupport
import Testing

/// A factor the router has never heard of (``EchoFactor``, with a sign-in start step, router-kept state and masked
/// info) works through the unchanged router and RPC parsers.
@Suite(.serialized) struct ThirdFactorTests {
    @Test func anEchoFactorEnrolsAndSignsInThroughTheUnchangedRouter() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: ["state": "ENABLED"])
            let user = try await mfa.verifiedUser(tenantID: tenant)
            let registry = MFAHarness.registry
            let start = try registry.enrollmentStart([
                "idToken": .string(user.tokens.idToken), "tenantId": .string(tenant),
                "echoEnrollmentInfo": ["label": "desk"],
            ])
            let started = try await mfa.router.startEnrollment(start)
            let session = try #require(started.result["echoSessionInfo"]?.objectValue)
            let finalize = try registry.enrollmentFinalize([
                "idToken": .string(user.tokens.idToken), "tenantId": .string(tenant),
                "echoVerificationInfo": ["sessionInfo": session["sessionInfo"] ?? nil, "code": session["code"] ?? nil],
            ])
            let enrolled = try await mfa.router.finalizeEnrollment(finalize)
            let enrollmentID = try #require(enrolled.mfaEnrollmentId)
            #expect(try claimsOf(enrolled.idToken)["sign_in_second_factor"] == "echo")
            #expect(
                try await mfa.core.sql(
                    "SELECT 1 FROM mfa_enrollments WHERE enrollment_id = $1 AND sealed_state IS NOT NULL",
                    [enrollmentID]) == 1)
            let lookedUp = try await mfa.firstFactor.lookup(idToken: enrolled.idToken, tenantID: tenant)
            #expect(lookedUp.mfaInfo.first?.factorInfo == ["echoInfo": "desk"])

            let challenge = try await mfa.challenge(user.email, tenantID: tenant)
            #expect(challenge.mfaInfo.first?.factorInfo == ["echoInfo": "***"])
            let credential = JSONValue.string(challenge.mfaPendingCredential)
            let response = try await mfa.router.startSignIn(
                try registry.signInStart([
                    "mfaPendingCredential": credential, "mfaEnrollmentId": .string(enrollmentID),
                    "tenantId": .string(tenant),
                ]))
            let sent = try #require(response["echoResponseInfo"]?.objectValue)
            func finish(_ code: JSONValue, sessionInfo: JSONValue?) throws -> SignInFinalizeRequest {
                var info: JSONObject = ["code": code]
                if let sessionInfo { info["sessionInfo"] = sessionInfo }
                return try registry.signInFinalize([
                    "mfaPendingCredential": credential, "mfaEnrollmentId": .string(enrollmentID),
                    "tenantId": .string(tenant), "echoVerificationInfo": .object(info),
                ])
            }
            #expect(
                try await reason { _ = try await mfa.router.finalizeSignIn(try finish("000000x", sessionInfo: nil)) }
                    == .missingSessionInfo)
            #expect(
                try await reason {
                    _ = try await mfa.router.finalizeSignIn(try finish("999999x", sessionInfo: sent["sessionInfo"]))
                } == .invalidCode)
            let tokens = try await mfa.router.finalizeSignIn(
                try finish(sent["code"] ?? nil, sessionInfo: sent["sessionInfo"]))
            #expect(try claimsOf(tokens.idToken)["second_factor_identifier"] == .string(enrollmentID))
        }
    }

    @Test func theSchemasListEveryFactorsMembers() {
        let registry = MFAHarness.registry
        let start = registry.enrollmentStartParams["properties"]?.objectValue?.keys ?? []
        #expect(
            start == [
                "idToken", "tenantId", "languageCode", "totpEnrollmentInfo", "echoEnrollmentInfo",
                "recoveryCodeEnrollmentInfo",
            ])
        #expect(registry.signInStartParams["properties"]?.objectValue?.keys.contains("echoSignInInfo") == true)
        #expect(registry.signInStartResult["properties"]?.objectValue?.keys == ["echoResponseInfo"])
        #expect(registry.migrations.map(\.module) == ["totp", "totp"])
    }
}
