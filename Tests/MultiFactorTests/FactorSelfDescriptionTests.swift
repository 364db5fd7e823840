import MultiFactor
import TOTPFactor
import TesseraCore
import TesseraJSON
import TesseraTestSupport
import Testing

/// What a factor says about itself beyond its members: the JSON form of its login pages (as a remote factor sends
/// it), the page templates, and reading info objects through the schemas the factor declares.
struct FactorSelfDescriptionTests {
    static let phoneLike = FactorLoginPages(
        enrollButton: "Send a code by SMS",
        enrollFields: [
            FactorInputField(
                name: "phoneNumber", label: "Phone number", inputType: "tel", autocomplete: "tel",
                hint: "In international format.", normalization: .stripSeparators)
        ],
        enrollTitle: "Confirm your phone number", enrollInstructions: "We sent a code to {phoneNumber}.",
        enrollmentLabel: "SMS to {phoneInfo}", signInInstructions: "We sent a code to {phoneInfo}.",
        code: FactorCodeField(infoKey: "code"), resend: true)

    @Test func loginPagesSurviveTheirJSONForm() throws {
        let json = Self.phoneLike.json
        #expect(try FactorLoginPages(json: json) == Self.phoneLike)
        let field = try #require(json["enrollFields"]?.arrayValue?.first?.objectValue)
        #expect(field["normalization"] == "strip-separators")
        #expect(field["infoKey"] == "phoneNumber")
        #expect(json["code"] == ["infoKey": "code", "label": "Verification code", "length": 6, "numeric": true])
        let totp = try #require(TOTPFactor().descriptor.loginPages)
        #expect(try FactorLoginPages(json: totp.json) == totp)
    }

    @Test func optionalMembersTakeTheirDefaults() throws {
        let pages = try FactorLoginPages(json: [
            "enrollButton": "Go", "enrollTitle": "Set up", "enrollmentLabel": "Mine", "signInInstructions": "Type it.",
            "code": ["infoKey": "otp"], "enrollFields": [["name": "handle", "label": "Handle"]],
        ])
        #expect(pages.resend == false && pages.enrollInstructions == nil)
        #expect(pages.code == FactorCodeField(infoKey: "otp", label: "Verification code", length: 6))
        #expect(pages.enrollFields == [FactorInputField(name: "handle", label: "Handle")])
        #expect(pages.enrollFields.first?.infoKey == "handle" && pages.enrollFields.first?.required == true)
    }

    static let badDocuments: [(JSONObject, String)] = [
        (
            ["enrollTitle": "t", "enrollmentLabel": "l", "signInInstructions": "s", "code": ["infoKey": "c"]],
            "enrollButton is required"
        ),
        (
            [
                "enrollButton": "b", "enrollTitle": "t", "enrollmentLabel": "l", "signInInstructions": "s",
                "code": ["infoKey": "c"], "resendd": true,
            ], "resendd is not a known member"
        ),
        (
            [
                "enrollButton": "b", "enrollTitle": "t", "enrollmentLabel": "l", "signInInstructions": "s",
                "code": ["infoKey": "c", "length": 0],
            ], "code.length must be an integer from 1 to 64"
        ),
        (
            [
                "enrollButton": "b", "enrollTitle": "t", "enrollmentLabel": "l", "signInInstructions": "s",
                "code": ["infoKey": "c"], "enrollFields": [["name": "n", "label": "l", "normalization": "digits"]],
            ],
            "enrollFields[0].normalization must be one of strip-separators"
        ),
    ]

    @Test(arguments: badDocuments)
    func badDocumentsAreRefusedWithTheirPath(_ json: JSONObject, _ detail: String) {
        do {
            _ = try FactorLoginPages(json: json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.reason == .invalidArgument)
            #expect(error.detail == detail)
        }
    }

    @Test func templatesFillPlaceholdersOrGiveUp() {
        let values = ["phoneInfo": "+*******0100"]
        #expect(FactorLoginPages.fill("SMS to {phoneInfo}", { values[$0] }) == "SMS to +*******0100")
        #expect(FactorLoginPages.fill("Authenticator app", { values[$0] }) == "Authenticator app")
        #expect(FactorLoginPages.fill("SMS to {number}", { values[$0] }) == nil)
        #expect(FactorLoginPages.fill("a {b", { values[$0] }) == "a {b")
    }

    @Test func fieldsNormalizeWhatIsTyped() {
        let field = Self.phoneLike.enrollFields[0]
        #expect(field.normalized(" +1 (555) 555-01.00\t") == "+15555550100")
        #expect(FactorInputField(name: "n", label: "l").normalized("  a b ") == "a b")
    }

    @Test func infoIsReadThroughTheMembersSchema() throws {
        let member = FactorMember(
            "xVerificationInfo",
            schema: [
                "type": "object", "properties": ["sessionInfo": ["type": "string"], "code": ["type": "string"]],
                "additionalProperties": false,
            ])
        #expect(try member.reader(["sessionInfo": "s", "code": "1"]).string("code") == "1")
        #expect(Self.readingReason { _ = try member.reader(["cod": "1"]) } == .invalidArgument)
        #expect(
            Self.readingReason { _ = try member.reader(["sessionInfo": "s"], excluding: ["sessionInfo"]) }
                == .invalidArgument)
        let open = FactorMember("xInfo", schema: ["type": "object"])
        #expect(try open.reader(["anything": "goes"]).string("anything") == "goes")
    }

    @Test func totpStillRefusesASessionAtSignIn() async throws {
        try await MFAHarness.run { mfa in
            let tenant = try await mfa.tenant(mfa: MFAHarness.totp(1))
            let (email, tokens) = try await mfa.verifiedUser(tenantID: tenant)
            let (enrollmentID, secret) = try await mfa.enrollTOTP(tokens.idToken, tenantID: tenant)
            mfa.clock.advance(by: 60)
            let challenge = try await mfa.challenge(email, tenantID: tenant)
            let refused = try await TesseraTestSupport.reason {
                _ = try await mfa.router.finalizeSignIn(
                    SignInFinalizeRequest(
                        pendingCredential: challenge.mfaPendingCredential, enrollmentID: enrollmentID,
                        tenantID: tenant, factor: "totp",
                        info: ["sessionInfo": "s", "verificationCode": .string(try mfa.code(secret, steps: 0))]))
            }
            #expect(refused == .invalidArgument)
        }
    }

    /// The reason `body` failed with, or nil.
    static func readingReason(_ body: () throws -> Void) -> AuthReason? {
        do {
            try body()
            return nil
        } catch {
            return (error as? AuthError)?.reason
        }
    }
}
