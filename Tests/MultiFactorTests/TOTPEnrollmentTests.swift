import FoundationEssentials
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraPostgres
import TesseraTestSupport
import Testing

/// What `mfaEnrollment.start` gives a TOTP user, and what is stored of the secret.
@Suite(.serialized) struct TOTPEnrollmentTests {
    @Test func theSessionInfoCarriesTheSecretOnceWithItsURIAndAPageGetsAQRCode() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp())
            try await mfa.setTenant(tenant, json: ["displayName": "Acme: Dev & Co", "mfaConfig": MFAHarness.totp()])
            let user = try await mfa.verifiedUser(tenantID: tenant)
            let started = try await mfa.router.startEnrollment(
                EnrollmentStartRequest(
                    idToken: user.tokens.idToken, tenantID: tenant, languageCode: nil, factor: "totp", info: [:]))
            let info = try #require(started.result["totpSessionInfo"]?.objectValue)
            let key = try #require(info["sharedSecretKey"]?.stringValue)
            #expect(key.count == 32 && !key.contains("="))
            #expect(try Base32.decode(key).count == 20)
            #expect(info["verificationCodeLength"] == 6)
            #expect(info["hashingAlgorithm"] == "SHA1")
            #expect(info["periodSec"] == 30)
            let account = user.email
            #expect(
                info["otpauthUri"]
                    == .string(
                        "otpauth://totp/Acme%3A%20Dev%20%26%20Co:\(account)?secret=\(key)&issuer=Acme%3A%20Dev%20%26%20Co"
                            + "&algorithm=SHA1&digits=6&period=30"))
            #expect(started.display.manualEntryKey == key)
            let svg = try #require(started.display.qrCodeSVG)
            #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>") && !svg.contains("<script"))

            let sessionInfo = try #require(info["sessionInfo"]?.stringValue)
            let enrolled = try await mfa.finalizeTOTP(
                user.tokens.idToken, sessionInfo: sessionInfo, code: try mfa.code(try Base32.decode(key)),
                tenantID: tenant)
            let enrollmentID = try #require(enrolled.mfaEnrollmentId)
            let sealed = try await mfa.core.database.withPool { pool in
                try await pool.query(
                    "SELECT sealed_state FROM mfa_enrollments WHERE enrollment_id = $1", [enrollmentID]
                )[0].decode([UInt8].self, at: 0)
            }
            #expect(!contains(sealed, try Base32.decode(key)))
            #expect(try await secretOf(mfa, enrollmentID) == (try Base32.decode(key)))
            let lookedUp = try await mfa.firstFactor.lookup(idToken: enrolled.idToken, tenantID: tenant)
            #expect(lookedUp.mfaInfo.map(\.factorInfo) == [["totpInfo": [:]]])
            #expect(lookedUp.mfaInfo.first?.displayName == "phone app")
        }
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}
