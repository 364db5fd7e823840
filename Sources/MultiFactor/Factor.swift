public import TesseraCore
public import TesseraJSON

/// A second factor, as a plugin implements it (DESIGN §5). A factor owns its challenge, its verification and its
/// own tables; the ``MultiFactorRouter`` owns everything around them: configuration, preconditions, sessions and
/// pending credentials, attempt limits, token issuance and logging. So a factor cannot forget brute-force
/// accounting: every verification it is asked for has already been counted.
///
/// Every method may throw ``AuthError``s, which reach the client as they are: `INVALID_CODE` for a wrong code,
/// `INVALID_ARGUMENT` or a `MISSING_*` reason for bad params, and so on. The `info` objects are the factor's own
/// param members (``FactorDescriptor``) as the client sent them: a factor must refuse members it does not know.
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

    /// Finishes an enrolment: checks `info` against the `state` of the start step and stores the factor's own
    /// record of `enrollment` (whose row the router has already written in `context.database`, a transaction).
    /// Returns what the owner may see of the enrolment (`{"totpInfo": {}}`). Throwing rolls everything back.
    func finalizeEnrollment(
        _ info: JSONObject, state: [UInt8], enrollment: Enrollment, for user: UserRecord, in context: FactorContext
    ) async throws -> JSONObject

    /// The sign-in start step of factors that have one (``FactorDescriptor/signInStart``): sends the challenge
    /// and returns the result member, which must carry `session.sessionInfo`. Never called for other factors.
    func startSignIn(
        _ enrollment: Enrollment, _ info: JSONObject, session: FactorSession, in context: FactorContext
    ) async throws -> SignInChallenge

    /// Checks a sign-in code for `enrollment`; `state` is that of the start step, nil without one. Throws
    /// `INVALID_CODE` for a wrong code. Must be replay-safe across the fleet: a code accepted once is never
    /// accepted again, which the factor enforces in `context.database` (a transaction that also consumes the
    /// pending credential).
    func verifySignIn(
        _ enrollment: Enrollment, _ info: JSONObject, state: [UInt8]?, in context: FactorContext) async throws

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

    /// The stored public info, whether masked or not.
    public func publicInfo(of enrollment: Enrollment, masked: Bool) -> JSONObject {
        enrollment.publicInfo
    }

    /// Enrolments are named by id only.
    public func enrollment(matching info: JSONObject, among enrollments: [Enrollment]) -> Enrollment? {
        nil
    }
}
