import FoundationEssentials
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraPostgres

/// A test-only third factor that proves a factor can be added without touching the router: it has a sign-in start
/// step (like SMS), state the router keeps for it (its label), a unique key and masked public info. Its "delivery"
/// is the result itself: the code comes back in the start step's response, which no real factor would ever do.
struct EchoFactor: Factor {
    var descriptor: FactorDescriptor {
        FactorDescriptor(
            id: "echo", enrollmentInfo: FactorMember("echoEnrollmentInfo", schema: ["type": "object"]),
            enrollmentResult: FactorMember("echoSessionInfo", schema: ["type": "object"]),
            verificationInfo: FactorMember("echoVerificationInfo", schema: ["type": "object"]),
            signInStart: SignInStartMembers(
                info: FactorMember("echoSignInInfo", schema: ["type": "object"]),
                result: FactorMember("echoResponseInfo", schema: ["type": "object"])),
            enrollmentLifetime: 120, signInLifetime: 60)
    }

    func isEnabled(by config: MultiFactorAuthConfig) -> Bool { config.state != .disabled }

    func startEnrollment(
        _ info: JSONObject, for user: UserRecord, session: FactorSession, in context: FactorContext
    ) async throws -> EnrollmentChallenge {
        let label = try ParamReader(info, allowed: ["label"]).credential("label", missing: .invalidArgument)
        let code = try SecureRandom.digits(count: 6)
        return EnrollmentChallenge(
            response: ["sessionInfo": .string(session.sessionInfo), "code": .string(code)],
            state: Array((code + label).utf8), display: EnrollmentDisplay(instructions: "Type \(code)."))
    }

    func finalizeEnrollment(
        _ info: JSONObject, state: [UInt8], for user: UserRecord, in context: FactorContext
    ) async throws -> EnrolledFactor {
        let code = try ParamReader(info, allowed: ["sessionInfo", "code"]).credential("code", missing: .missingCode)
        guard ConstantTime.equals(Array(code.utf8), Array(state.prefix(6))) else { throw AuthError(.invalidCode) }
        let label = String(decoding: state.dropFirst(6), as: UTF8.self)
        return EnrolledFactor(
            publicInfo: ["echoInfo": .string(label)], maskedInfo: ["echoInfo": "***"], state: Array(label.utf8),
            uniqueKey: label)
    }

    func startSignIn(
        _ enrollment: Enrollment, _ info: JSONObject, session: FactorSession, in context: FactorContext
    ) async throws -> SignInChallenge {
        _ = try ParamReader(info, allowed: [])
        let code = try SecureRandom.digits(count: 6)
        return SignInChallenge(
            response: ["sessionInfo": .string(session.sessionInfo), "code": .string(code)], state: Array(code.utf8))
    }

    func verifySignIn(
        _ enrollment: Enrollment, _ info: JSONObject, state: [UInt8]?, in context: FactorContext
    ) async throws -> SignInVerdict {
        let code = try ParamReader(info, allowed: ["sessionInfo", "code"]).credential("code", missing: .missingCode)
        guard let state, ConstantTime.equals(Array(code.utf8), state) else { throw AuthError(.invalidCode) }
        guard String(decoding: enrollment.state, as: UTF8.self) == enrollment.publicInfo["echoInfo"]?.stringValue
        else { throw AuthError(.invalidArgument, "the router lost the echo factor state") }
        return .accepted
    }
}
