public import TesseraCore
public import TesseraJSON

/// A second factor, as a plugin implements it (DESIGN §5). A factor makes challenges and checks answers; the
/// ``MultiFactorRouter`` owns everything around them: configuration, preconditions, sessions and pending
/// credentials, attempt limits, the factor's stored state, replay marks, token issuance and logging. So a factor
/// cannot forget brute-force accounting (every verification it is asked for has already been counted), and a factor
/// keeps no state of its own: the same protocol is carried over JSON-RPC to factor services
/// (`docs/factor-protocol.md`), which can then be replicated freely.
///
/// No method runs inside a database transaction: the router writes the outcome after the factor answered, so a
/// slow factor never holds a transaction open.
///
/// Every method may throw ``AuthError``s, which reach the client as they are: `INVALID_CODE` for a wrong code,
/// `INVALID_ARGUMENT` or a `MISSING_*` reason for bad params, `FACTOR_SERVICE_UNAVAILABLE` when the factor could not
/// answer (the router then gives the attempt back). The `info` objects are the factor's own param members
/// (``FactorDescriptor``) as the client sent them: a factor must refuse members it does not know.
public protocol Factor: Sendable {
    /// The factor's id, members, lifetimes and migrations.
    var descriptor: FactorDescriptor { get }

    /// Whether the effective MFA configuration enables this factor (API §4 rule 2). Enrolments of a factor that
    /// is not enabled are kept, hidden and unusable.
    func isEnabled(by config: MultiFactorAuthConfig) -> Bool

    /// Starts an enrolment for `user` (the router has checked every precondition): makes the challenge, sends what
    /// must be sent, and returns the result member, which must carry `session.sessionInfo`.
    func startEnrollment(
        _ info: JSONObject, for user: UserRecord, session: FactorSession, in context: FactorContext
    ) async throws -> EnrollmentChallenge

    /// Checks the verification `info` against the `state` of the start step and returns what the router stores
    /// for the new enrolment: what its owner sees, its secret state, its first replay mark and its unique key.
    func finalizeEnrollment(
        _ info: JSONObject, state: [UInt8], for user: UserRecord, in context: FactorContext
    ) async throws -> EnrolledFactor

    /// The sign-in start step of factors that have one (``FactorDescriptor/signInStart``): sends the challenge
    /// and returns the result member, which must carry `session.sessionInfo`. Never called for other factors.
    func startSignIn(
        _ enrollment: Enrollment, _ info: JSONObject, session: FactorSession, in context: FactorContext
    ) async throws -> SignInChallenge

    /// Checks a sign-in code for `enrollment`; `state` is that of the start step, nil without one. Throws
    /// `INVALID_CODE` for a wrong code. A factor whose codes could be used twice (TOTP) returns the code's replay
    /// mark: the router records it by a compare-and-swap and refuses any mark not greater than the last, so across
    /// a fleet a code is accepted once.
    func verifySignIn(
        _ enrollment: Enrollment, _ info: JSONObject, state: [UInt8]?, in context: FactorContext
    ) async throws -> SignInVerdict

    /// What clients see of `enrollment`: masked in a sign-in challenge, in full for its owner and admins.
    func publicInfo(of enrollment: Enrollment, masked: Bool) -> JSONObject

    /// The enrolment among `enrollments` (all of this factor) that `info` names by other means than its id (a
    /// phone number), or nil. Lets `mfaSignIn.finalize` go without `mfaEnrollmentId`.
    func enrollment(matching info: JSONObject, among enrollments: [Enrollment]) -> Enrollment?
}

extension Factor {
    /// A factor without a sign-in start step is never asked for one.
    public func startSignIn(
        _ enrollment: Enrollment, _ info: JSONObject, session: FactorSession, in context: FactorContext
    ) async throws -> SignInChallenge {
        throw AuthError(.invalidArgument, "The \(descriptor.id) factor has no sign-in start step.")
    }

    /// The stored public info, or the stored masked form in a challenge.
    public func publicInfo(of enrollment: Enrollment, masked: Bool) -> JSONObject {
        masked ? enrollment.maskedInfo ?? enrollment.publicInfo : enrollment.publicInfo
    }

    /// The enrolment the descriptor's ``FactorDescriptor/enrollmentNamedBy`` finds, or nil (named by id only).
    public func enrollment(matching info: JSONObject, among enrollments: [Enrollment]) -> Enrollment? {
        descriptor.enrollmentNamedBy?.enrollment(named: info, among: enrollments)
    }
}
