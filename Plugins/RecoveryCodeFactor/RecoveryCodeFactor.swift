import FoundationEssentials
public import MultiFactor
public import TesseraCore
public import TesseraJSON

/// Recovery codes (docs/mfa.md#recovery-codes): ten single-use codes of 60 bits, a backup factor for a user who
/// lost their other one.
///
/// - Enrolment (only beside another factor; the router enforces it, ``FactorDescriptor/isBackup``): start makes
///   the codes and returns them, the one time they are shown; the router keeps their SHA-256 sealed in its
///   session. Finalize asks for one of them back (so the user has kept them; it stays usable) and stores the set
///   as the enrolment's state. A new set replaces the old one, whose codes stop working with the commit.
/// - Sign-in: a code is accepted when it is one of the set and unused. The verdict marks it used in a new state
///   and carries the number of used codes as its replay mark, which the router records by a compare-and-swap with
///   the state: of two sign-ins racing on the same set (with one code or two), one succeeds and the other gets
///   `INVALID_CODE`, so no code is ever accepted twice. The router's attempt limits apply as to any factor.
/// - What the owner sees: `{"recoveryCodeInfo": {"remaining": N}}`.
public struct RecoveryCodeFactor: Factor {
    /// The factor id.
    public static let id: FactorID = "recovery"
    /// How long the codes of an enrolment start wait to be confirmed.
    public static let enrollmentLifetime: Double = 600

    /// The factor.
    public init() {}

    /// `recoveryCodeEnrollmentInfo: {}`.
    static let enrollmentInfo = FactorMember(
        "recoveryCodeEnrollmentInfo", schema: ["type": "object", "additionalProperties": false])
    /// `recoveryCodeSessionInfo: {sessionInfo, codes, finalizeEnrollmentTime}`.
    static let enrollmentResult = FactorMember(
        "recoveryCodeSessionInfo",
        schema: [
            "type": "object",
            "properties": [
                "sessionInfo": ["type": "string"], "codes": ["type": "array", "items": ["type": "string"]],
                "finalizeEnrollmentTime": ["type": "string"],
            ],
            "required": ["sessionInfo", "codes", "finalizeEnrollmentTime"],
        ])
    /// `recoveryCodeVerificationInfo: {sessionInfo?, code}`: `sessionInfo` at enrolment only.
    static let verificationInfo = FactorMember(
        "recoveryCodeVerificationInfo",
        schema: [
            "type": "object",
            "properties": ["sessionInfo": ["type": "string"], "code": ["type": "string"]],
            "required": ["code"], "additionalProperties": false,
        ])

    /// The members above, `amr` `otp` (RFC 8176: a one-time password), a backup factor, and login pages whose code
    /// field takes letters.
    public var descriptor: FactorDescriptor {
        FactorDescriptor(
            id: Self.id, amr: "otp", displayName: "Recovery code", enrollmentInfo: Self.enrollmentInfo,
            enrollmentResult: Self.enrollmentResult, verificationInfo: Self.verificationInfo,
            enrollmentLifetime: Self.enrollmentLifetime,
            loginPages: FactorLoginPages(
                enrollButton: "Make recovery codes", enrollTitle: "Save your recovery codes",
                enrollInstructions: "Write these codes down or print them, and keep them somewhere safe: each works "
                    + "once, if you lose your other second factor. Then enter one of them to confirm.",
                enrollmentLabel: "Recovery code",
                signInInstructions: "Enter one of your recovery codes. Each code works once.",
                code: FactorCodeField(infoKey: "code", label: "Recovery code", length: 14, isNumeric: false)),
            isBackup: true)
    }

    /// Enabled when the effective config has an enabled `recoveryCodeProviderConfig` entry.
    public func isEnabled(by config: MultiFactorAuthConfig) -> Bool {
        config.enablesRecoveryCodes
    }

    /// Ten new codes, returned once; their digests go to the router's session.
    public func startEnrollment(
        _ info: JSONObject, for user: UserRecord, session: FactorSession, in context: FactorContext
    ) async throws -> EnrollmentChallenge {
        _ = try Self.enrollmentInfo.reader(info)
        let (codes, set) = try RecoveryCodeSet.make()
        return EnrollmentChallenge(
            response: [
                "sessionInfo": .string(session.sessionInfo), "codes": .array(codes.map(JSONValue.string)),
                "finalizeEnrollmentTime": .string(RFC3339.string(from: session.expiresAt)),
            ],
            state: set.bytes,
            display: EnrollmentDisplay(
                instructions: "Write these codes down or print them, and keep them somewhere safe: "
                    + codes.joined(separator: "  ")
                    + ". Each works once, if you lose your other second factor. Then enter one of them to confirm.",
                manualEntryKey: codes.joined(separator: " ")))
    }

    /// Checks that `code` is one of the new set; the set, all unused, becomes the enrolment's state.
    public func finalizeEnrollment(
        _ info: JSONObject, state: [UInt8], for user: UserRecord, in context: FactorContext
    ) async throws -> EnrolledFactor {
        let code = try Self.verificationInfo.reader(info).credential("code", missing: .missingCode)
        guard let set = RecoveryCodeSet(bytes: state), try set.contains(code) else { throw Self.invalidCode }
        return EnrolledFactor(publicInfo: Self.info(remaining: set.remaining), state: set.bytes, replayMark: 0)
    }

    /// Accepts an unused code of the set: the new state marks it used, and the replay mark is the count of used
    /// codes, so the router's compare-and-swap lets one of two racing uses through.
    public func verifySignIn(
        _ enrollment: Enrollment, _ info: JSONObject, state: [UInt8]?, in context: FactorContext
    ) async throws -> SignInVerdict {
        let code = try Self.verificationInfo.reader(info, excluding: ["sessionInfo"])
            .credential("code", missing: .missingCode)
        guard var set = RecoveryCodeSet(bytes: enrollment.state) else {
            throw AuthError(.mfaEnrollmentNotFound, "The recovery codes are missing; make new ones.")
        }
        guard let index = try set.unusedIndex(of: code) else { throw Self.invalidCode }
        set.used[index] = true
        return SignInVerdict(replayMark: Int64(set.usedCount), state: set.bytes)
    }

    /// `{"recoveryCodeInfo": {"remaining": N}}`, from the enrolment's state, masked or not.
    public func publicInfo(of enrollment: Enrollment, masked: Bool) -> JSONObject {
        guard let set = RecoveryCodeSet(bytes: enrollment.state) else { return enrollment.publicInfo }
        return Self.info(remaining: set.remaining)
    }

    static func info(remaining: Int) -> JSONObject {
        ["recoveryCodeInfo": ["remaining": .integer(Int64(remaining))]]
    }

    private static var invalidCode: AuthError {
        AuthError(.invalidCode, "The recovery code is not valid or has been used.")
    }
}
