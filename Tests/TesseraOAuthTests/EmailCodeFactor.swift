import MultiFactor
import Synchronization
import TesseraCore
import TesseraCrypto
import TesseraJSON

/// A test-only third factor, registered only by the tests that use it: a 6-digit code "sent by e-mail" to an
/// address the user types at enrolment, with a sign-in start step that sends a new one. It exists to prove that a
/// factor appears on the login pages (enrolment choice, enrolment page, code page) and completes an OAuth login
/// with no change outside its definition. Its pages are read from a JSON document, as a remote factor service's
/// descriptor would be. It keeps no table: its state is the sealed session state the router stores.
struct EmailCodeFactor: Factor {
    /// Where its "e-mails" go.
    let mailbox: Mailbox

    static let enrollmentInfo = FactorMember(
        "emailEnrollmentInfo",
        schema: [
            "type": "object", "properties": ["email": ["type": "string"]], "required": ["email"],
            "additionalProperties": false,
        ])
    static let verificationInfo = FactorMember(
        "emailVerificationInfo",
        schema: [
            "type": "object", "properties": ["sessionInfo": ["type": "string"], "code": ["type": "string"]],
            "required": ["sessionInfo", "code"], "additionalProperties": false,
        ])
    static let signInInfo = FactorMember(
        "emailSignInInfo", schema: ["type": "object", "additionalProperties": false])
    static let sessionResult: JSONValue = [
        "type": "object", "properties": ["sessionInfo": ["type": "string"]], "additionalProperties": false,
    ]

    /// The pages as a factor service would send them. The field is named apart from its info key, to show the
    /// mapping.
    static let pagesDocument: JSONObject = [
        "enrollButton": "Send a code by e-mail",
        "enrollFields": [
            [
                "name": "codeEmail", "label": "E-mail address", "inputType": "email", "autocomplete": "email",
                "infoKey": "email",
            ]
        ],
        "enrollTitle": "Confirm your e-mail address",
        "enrollInstructions": "Enter the 6-digit code we sent to {codeEmail}.",
        "enrollmentLabel": "E-mail to {emailInfo}",
        "signInInstructions": "Enter the 6-digit code we sent to {emailInfo}.",
        "code": ["infoKey": "code", "label": "Code from the e-mail", "length": 6],
        "resend": true,
    ]

    var descriptor: FactorDescriptor {
        FactorDescriptor(
            id: "email", amr: "otp", displayName: "E-mail code", enrollmentInfo: Self.enrollmentInfo,
            enrollmentResult: FactorMember("emailSessionInfo", schema: Self.sessionResult),
            verificationInfo: Self.verificationInfo,
            signInStart: SignInStartMembers(
                info: Self.signInInfo, result: FactorMember("emailResponseInfo", schema: Self.sessionResult)),
            enrollmentLifetime: 300, signInLifetime: 300,
            loginPages: try? FactorLoginPages(json: Self.pagesDocument))
    }

    func isEnabled(by config: MultiFactorAuthConfig) -> Bool { config.state != .disabled }

    func startEnrollment(
        _ info: JSONObject, for user: UserRecord, session: FactorSession, in context: FactorContext
    ) async throws -> EnrollmentChallenge {
        let address = try Self.enrollmentInfo.reader(info).credential("email", missing: .invalidArgument)
        guard address.contains("@") else { throw AuthError(.invalidArgument, "email is not an address.") }
        let code = try mailbox.send(to: address)
        return EnrollmentChallenge(
            response: ["sessionInfo": .string(session.sessionInfo)], state: Array((code + address).utf8),
            display: EnrollmentDisplay(instructions: "Enter the code we e-mailed you."))
    }

    func finalizeEnrollment(
        _ info: JSONObject, state: [UInt8], for user: UserRecord, in context: FactorContext
    ) async throws -> EnrolledFactor {
        let code = try Self.verificationInfo.reader(info).credential("code", missing: .missingCode)
        guard ConstantTime.equals(Array(code.utf8), Array(state.prefix(6))) else { throw AuthError(.invalidCode) }
        return EnrolledFactor(publicInfo: ["emailInfo": .string(String(decoding: state.dropFirst(6), as: UTF8.self))])
    }

    func startSignIn(
        _ enrollment: Enrollment, _ info: JSONObject, session: FactorSession, in context: FactorContext
    ) async throws -> SignInChallenge {
        _ = try Self.signInInfo.reader(info)
        let address = enrollment.publicInfo["emailInfo"]?.stringValue ?? ""
        let code = try mailbox.send(to: address)
        return SignInChallenge(response: ["sessionInfo": .string(session.sessionInfo)], state: Array(code.utf8))
    }

    func verifySignIn(
        _ enrollment: Enrollment, _ info: JSONObject, state: [UInt8]?, in context: FactorContext
    ) async throws -> SignInVerdict {
        let code = try Self.verificationInfo.reader(info).credential("code", missing: .missingCode)
        guard let state, ConstantTime.equals(Array(code.utf8), state) else { throw AuthError(.invalidCode) }
        return .accepted
    }

    /// The address with all but its first letter hidden before the `@`, in challenges.
    func publicInfo(of enrollment: Enrollment, masked: Bool) -> JSONObject {
        guard masked, let address = enrollment.publicInfo["emailInfo"]?.stringValue,
            let at = address.firstIndex(of: "@")
        else { return enrollment.publicInfo }
        return ["emailInfo": .string(address.prefix(1) + "***" + address[at...])]
    }

    /// Keeps every code sent.
    final class Mailbox: Sendable {
        private let messages = Mutex<[(to: String, code: String)]>([])

        /// Makes a code and "sends" it to `address`.
        func send(to address: String) throws -> String {
            let code = try SecureRandom.digits(count: 6)
            messages.withLock { $0.append((address, code)) }
            return code
        }

        /// The codes sent to `address`, oldest first.
        func codes(to address: String) -> [String] {
            messages.withLock { $0.filter { $0.to == address }.map(\.code) }
        }
    }
}
