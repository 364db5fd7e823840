import MultiFactor
import TesseraCore
import TesseraJSON
import Testing

/// The registry's parsers of the multi-factor params: the `MISSING_*` reasons of API §10 and `INVALID_ARGUMENT`
/// for unknown, mistyped, absent or doubled factor members.
struct ParamReadingTests {
    let registry = MFAHarness.registry

    static func reasonOf(_ body: () throws -> Void) -> AuthReason? {
        do {
            try body()
            return nil
        } catch let error as AuthError {
            return error.reason
        } catch {
            return nil
        }
    }

    static let enrollmentStartCases: [(JSONObject, AuthReason)] = [
        ([:], AuthReason.invalidArgument),
        (["totpEnrollmentInfo": [:]], .missingIDToken),
        (["idToken": "", "totpEnrollmentInfo": [:]], .missingIDToken),
        (["idToken": 7, "totpEnrollmentInfo": [:]], .invalidArgument),
        (["idToken": "t", "totpEnrollmentInfo": [:], "echoEnrollmentInfo": [:]], .invalidArgument),
        (["idToken": "t", "phoneEnrollmentInfo": [:]], .invalidArgument),
        (["idToken": "t", "totpEnrollmentInfo": "x"], .invalidArgument),
        (["idToken": "t", "totpEnrollmentInfo": [:], "tenantID": "typo"], .invalidArgument),
    ]

    @Test(arguments: enrollmentStartCases)
    func enrollmentStart(_ params: JSONObject, _ expected: AuthReason) {
        #expect(Self.reasonOf { _ = try registry.enrollmentStart(params) } == expected)
    }

    static let signInFinalizeCases: [(JSONObject, AuthReason)] = [
        (["totpVerificationInfo": ["verificationCode": "1"]], AuthReason.missingMFAPendingCredential),
        (["mfaPendingCredential": "p"], .invalidArgument),
        (["mfaPendingCredential": "p", "totpVerificationInfo": [:], "mfaEnrollmentId": 3], .invalidArgument),
    ]

    @Test(arguments: signInFinalizeCases)
    func signInFinalize(_ params: JSONObject, _ expected: AuthReason) {
        #expect(Self.reasonOf { _ = try registry.signInFinalize(params) } == expected)
    }

    static let signInStartCases: [(JSONObject, AuthReason)] = [
        (["mfaEnrollmentId": "e"], AuthReason.missingMFAPendingCredential),
        (["mfaPendingCredential": "p"], .missingMFAEnrollmentID),
        (["mfaPendingCredential": "p", "mfaEnrollmentId": "e", "totpSignInInfo": [:]], .invalidArgument),
    ]

    @Test(arguments: signInStartCases)
    func signInStart(_ params: JSONObject, _ expected: AuthReason) {
        #expect(Self.reasonOf { _ = try registry.signInStart(params) } == expected)
    }

    @Test func finalizeNeedsTheSessionOfTheStartStep() {
        #expect(
            Self.reasonOf {
                _ = try registry.enrollmentFinalize(["idToken": "t", "totpVerificationInfo": ["verificationCode": "1"]])
            } == nil)
        #expect(Self.reasonOf { _ = try registry.enrollmentFinalize(["totpVerificationInfo": [:]]) } == .missingIDToken)
    }
}
