public import MultiFactor
public import PhoneCodes
public import TesseraCore
public import TesseraJSON

/// The SMS second factor (API §4 "Phone factor").
///
/// - Enrolment: start checks the number (E.164, not already this user's second factor: `SECOND_FACTOR_EXISTS`)
///   and sends a code through the ``SMSCodeIssuer`` (app verification, test numbers, regions, limits); finalize
///   checks the code and returns the number as the enrolment's public info and unique key, so the router refuses
///   a number enrolled meanwhile. The factor keeps no table of its own: its enrolments are the router's, and the
///   send limits and the migrations of module `phone` belong to `PhoneCodes`, which phone sign-in (a first factor,
///   in target `PhoneSignIn`) shares with it.
/// - Sign-in: start sends a code to the enrolled number; finalize checks it. The router takes attempts, binds the
///   session to the pending credential and consumes both, so a wrong code leaves the session open and a right one
///   ends it.
/// - Challenges show the number masked (`+*******0100`); `mfaSignIn.finalize` may name the enrolment by its
///   number, masked or not, instead of its id.
public struct PhoneFactor: Factor {
    /// The factor id.
    public static let id: FactorID = "phone"
    /// How long a code, and so its session, is valid (API §9).
    public static let codeLifetime: Double = 300

    /// Sends the codes.
    public let codes: SMSCodeIssuer

    /// The factor, sending through `codes`.
    public init(codes: SMSCodeIssuer) {
        self.codes = codes
    }

    /// The schema of a start step's result: `{sessionInfo}`.
    private static let sessionInfo: JSONValue = [
        "type": "object", "properties": ["sessionInfo": ["type": "string"]], "required": ["sessionInfo"],
        "additionalProperties": false,
    ]
    /// `phoneEnrollmentInfo: {phoneNumber, appVerification?}`.
    static let enrollmentInfo = FactorMember(
        "phoneEnrollmentInfo",
        schema: [
            "type": "object",
            "properties": ["phoneNumber": ["type": "string"], "appVerification": AppCredential.schema],
            "required": ["phoneNumber"], "additionalProperties": false,
        ])
    /// `phoneVerificationInfo: {sessionInfo, code, phoneNumber?}`: `phoneNumber` at sign-in only.
    static let verificationInfo = FactorMember(
        "phoneVerificationInfo",
        schema: [
            "type": "object",
            "properties": [
                "sessionInfo": ["type": "string"], "code": ["type": "string"], "phoneNumber": ["type": "string"],
            ],
            "required": ["sessionInfo", "code"], "additionalProperties": false,
        ])
    /// `phoneSignInInfo: {appVerification?}`.
    static let signInInfo = FactorMember(
        "phoneSignInInfo",
        schema: [
            "type": "object", "properties": ["appVerification": AppCredential.schema], "additionalProperties": false,
        ])

    /// `phoneEnrollmentInfo: {phoneNumber, appVerification?}` → `phoneSessionInfo: {sessionInfo}`;
    /// `phoneVerificationInfo: {sessionInfo, code, phoneNumber?}`; `phoneSignInInfo: {appVerification?}` →
    /// `phoneResponseInfo: {sessionInfo}`; `amr` `sms`; on the login pages a number to type, then the code sent.
    public var descriptor: FactorDescriptor {
        FactorDescriptor(
            id: Self.id, amr: "sms", displayName: "Text message (SMS)", enrollmentInfo: Self.enrollmentInfo,
            enrollmentResult: FactorMember("phoneSessionInfo", schema: Self.sessionInfo),
            verificationInfo: Self.verificationInfo,
            signInStart: SignInStartMembers(
                info: Self.signInInfo, result: FactorMember("phoneResponseInfo", schema: Self.sessionInfo)),
            enrollmentLifetime: Self.codeLifetime, signInLifetime: Self.codeLifetime, loginPages: Self.loginPages,
            enrollmentNamedBy: Self.namedByNumber)
    }

    /// `mfaSignIn.finalize` may name an enrolment by its number, in full or masked (API §4).
    static let namedByNumber = EnrollmentReference(infoKey: "phoneNumber", publicInfoKey: "phoneInfo")

    /// The login pages: the number (typed with any separators), then the code sent to it.
    private static let loginPages = FactorLoginPages(
        enrollButton: "Send a code by SMS",
        enrollFields: [
            FactorInputField(
                name: "phoneNumber", label: "Phone number", inputType: "tel", autocomplete: "tel",
                hint: "In international format, for example +15555550100.", normalization: .stripSeparators)
        ],
        enrollTitle: "Confirm your phone number",
        enrollInstructions: "Enter the \(PhoneCode.digits)-digit code we sent by SMS to {phoneNumber}.",
        enrollmentLabel: "SMS to {phoneInfo}",
        signInInstructions: "Enter the \(PhoneCode.digits)-digit code we sent by SMS to {phoneInfo}.",
        code: FactorCodeField(infoKey: "code", length: PhoneCode.digits), resend: true)

    /// Enabled when the effective config lists `PHONE_SMS` (API §4 rule 2).
    public func isEnabled(by config: MultiFactorAuthConfig) -> Bool {
        config.isPhoneEnabled
    }

    /// Sends an enrolment code to the number in `info`, unless it is already one of the user's.
    public func startEnrollment(
        _ info: JSONObject, for user: UserRecord, session: FactorSession, in context: FactorContext
    ) async throws -> EnrollmentChallenge {
        let reader = try Self.enrollmentInfo.reader(info)
        let phoneNumber = try PhoneNumber.checkedParam(try reader.string("phoneNumber"))
        let credential = try AppCredential.read(try reader.object("appVerification"))
        guard !context.enrollments.contains(where: { Self.number(of: $0) == phoneNumber }) else { throw Self.exists }
        let digest = try await codes.issue(
            context.database,
            request(phoneNumber, .mfaEnrollment, session: session, credential: credential, context: context))
        return EnrollmentChallenge(
            response: ["sessionInfo": .string(session.sessionInfo)],
            state: PhoneChallengeState(phoneNumber: phoneNumber, codeDigest: digest).bytes,
            display: EnrollmentDisplay(instructions: Self.instructions(phoneNumber)))
    }

    /// Checks the enrolment code; the number is the enrolment's unique key, so the router refuses a number the
    /// user enrolled meanwhile.
    public func finalizeEnrollment(
        _ info: JSONObject, state: [UInt8], for user: UserRecord, in context: FactorContext
    ) async throws -> EnrolledFactor {
        let reader = try Self.verificationInfo.reader(info, excluding: ["phoneNumber"])
        let sessionInfo = try reader.credential("sessionInfo", missing: .missingSessionInfo)
        let code = try reader.credential("code", missing: .missingCode)
        let challenge = try PhoneChallengeState(bytes: state)
        try await TestNumberAttempts.take(
            context.database, config: context.config, phoneNumber: challenge.phoneNumber, now: context.now)
        guard PhoneCode.matches(code, digest: challenge.codeDigest, sessionInfo: sessionInfo) else {
            throw Self.invalidCode
        }
        return EnrolledFactor(
            publicInfo: ["phoneInfo": .string(challenge.phoneNumber)],
            maskedInfo: ["phoneInfo": .string(PhoneNumber.masked(challenge.phoneNumber))],
            uniqueKey: challenge.phoneNumber)
    }

    /// Sends a sign-in code to the enrolled number.
    public func startSignIn(
        _ enrollment: Enrollment, _ info: JSONObject, session: FactorSession, in context: FactorContext
    ) async throws -> SignInChallenge {
        let reader = try Self.signInInfo.reader(info)
        let credential = try AppCredential.read(try reader.object("appVerification"))
        guard let phoneNumber = Self.number(of: enrollment) else {
            throw AuthError(.mfaEnrollmentNotFound, "The SMS enrolment has no number; enrol again.")
        }
        let digest = try await codes.issue(
            context.database,
            request(phoneNumber, .mfaSignIn, session: session, credential: credential, context: context))
        return SignInChallenge(response: ["sessionInfo": .string(session.sessionInfo)], state: digest)
    }

    /// Checks a sign-in code against the start step's digest. A `phoneNumber` in `info` must name this enrolment.
    public func verifySignIn(
        _ enrollment: Enrollment, _ info: JSONObject, state: [UInt8]?, in context: FactorContext
    ) async throws -> SignInVerdict {
        let reader = try Self.verificationInfo.reader(info)
        let sessionInfo = try reader.credential("sessionInfo", missing: .missingSessionInfo)
        let code = try reader.credential("code", missing: .missingCode)
        if let named = try reader.string("phoneNumber"), !Self.namedByNumber.names(named, enrollment) {
            throw AuthError(.invalidArgument, "phoneNumber does not name the enrolment.")
        }
        if let phoneNumber = Self.number(of: enrollment) {
            try await TestNumberAttempts.take(
                context.database, config: context.config, phoneNumber: phoneNumber, now: context.now)
        }
        guard let digest = state, PhoneCode.matches(code, digest: digest, sessionInfo: sessionInfo) else {
            throw Self.invalidCode
        }
        return .accepted
    }

    private func request(
        _ phoneNumber: String, _ kind: SMSKind, session: FactorSession, credential: AppCredential?,
        context: FactorContext
    ) -> SMSCodeIssuer.Request {
        SMSCodeIssuer.Request(
            phoneNumber: phoneNumber, kind: kind, sessionInfo: session.sessionInfo, credential: credential,
            config: context.config, languageCode: context.languageCode, clientAddress: context.clientAddress,
            appVerifiedByServer: context.appVerifiedByServer, now: context.now)
    }

    /// The number an enrolment's public info holds.
    private static func number(of enrollment: Enrollment) -> String? {
        enrollment.publicInfo["phoneInfo"]?.stringValue
    }

    private static func instructions(_ phoneNumber: String) -> String {
        "Enter the \(PhoneCode.digits)-digit code sent by SMS to \(PhoneNumber.masked(phoneNumber))."
    }

    private static var exists: AuthError {
        AuthError(.secondFactorExists, "This phone number is already one of the user's second factors.")
    }

    private static var invalidCode: AuthError {
        AuthError(.invalidCode, "The verification code is not valid.")
    }
}
