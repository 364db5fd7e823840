import FoundationEssentials
public import MultiFactor
public import TesseraCore
import TesseraCrypto
public import TesseraJSON
import TesseraPostgres
import TesseraQRCode

/// The TOTP second factor (API §4 "TOTP factor"): RFC 6238 with HMAC-SHA1, 6 digits and a 30 s period over a
/// 160-bit secret from the CSPRNG.
///
/// - Enrolment: start makes the secret (kept sealed in the router's session until finalize) and returns it with
///   its `otpauth://` URI; a page gets a QR code of the URI as SVG. Finalize checks a code and returns the secret
///   as the enrolment's state (the router seals it under the master key) with the code's step as its replay mark.
/// - Sign-in: a code is accepted when it matches a step within ±`adjacentIntervals` of now (effective config,
///   0–10); the router records its step by a compare-and-swap and refuses a step not later than the last, so
///   across a fleet exactly one use of a code (or of any earlier one) succeeds. The factor keeps no table.
public struct TOTPFactor: Factor {
    /// The factor id.
    public static let id: FactorID = "totp"
    /// Digits per code.
    public static let digits = 6
    /// Seconds per time step.
    public static let period = 30
    /// Bytes of secret (160 bits).
    public static let secretByteCount = 20
    /// How long an enrolment session lasts (API §9).
    public static let enrollmentLifetime: Double = 600

    /// The factor.
    public init() {}

    /// `totpEnrollmentInfo: {}`.
    static let enrollmentInfo = FactorMember(
        "totpEnrollmentInfo", schema: ["type": "object", "additionalProperties": false])
    /// `totpVerificationInfo: {sessionInfo?, verificationCode}`: `sessionInfo` at enrolment only.
    static let verificationInfo = FactorMember(
        "totpVerificationInfo",
        schema: [
            "type": "object",
            "properties": ["sessionInfo": ["type": "string"], "verificationCode": ["type": "string"]],
            "required": ["verificationCode"], "additionalProperties": false,
        ])

    /// `totpEnrollmentInfo: {}` → `totpSessionInfo`; `totpVerificationInfo: {sessionInfo?, verificationCode}`;
    /// `amr` `otp`; on the login pages a QR code and key (from the ``EnrollmentDisplay``), then a code.
    public var descriptor: FactorDescriptor {
        FactorDescriptor(
            id: Self.id, amr: "otp", displayName: "Authenticator app", enrollmentInfo: Self.enrollmentInfo,
            enrollmentResult: FactorMember("totpSessionInfo", schema: JSONSchema.of(TOTPSessionInfo.self)),
            verificationInfo: Self.verificationInfo, enrollmentLifetime: Self.enrollmentLifetime,
            loginPages: FactorLoginPages(
                enrollButton: "Use an authenticator app", enrollTitle: "Set up your authenticator app",
                enrollmentLabel: "Authenticator app",
                signInInstructions: "Enter the \(Self.digits)-digit code your authenticator app shows.",
                code: FactorCodeField(infoKey: "verificationCode", length: Self.digits)),
            migrations: TOTPMigrations.all)
    }

    /// Enabled when the effective config has an enabled TOTP provider config (API §4 rule 2).
    public func isEnabled(by config: MultiFactorAuthConfig) -> Bool {
        config.totpAdjacentIntervals != nil
    }

    /// A new secret, its base32 form, URI and QR code.
    public func startEnrollment(
        _ info: JSONObject, for user: UserRecord, session: FactorSession, in context: FactorContext
    ) async throws -> EnrollmentChallenge {
        _ = try Self.enrollmentInfo.reader(info)
        let secret = try SecureRandom.bytes(count: Self.secretByteCount)
        let key = Base32.encode(secret)
        let uri = OTPAuthURI.make(
            issuer: context.config.issuerName, account: user.email ?? user.userID, secret: key, digits: Self.digits,
            period: Self.period)
        let response = TOTPSessionInfo(
            sharedSecretKey: key, verificationCodeLength: Self.digits, hashingAlgorithm: "SHA1",
            periodSec: Self.period, sessionInfo: session.sessionInfo,
            finalizeEnrollmentTime: RFC3339.string(from: session.expiresAt), otpauthUri: uri)
        let display = EnrollmentDisplay(
            instructions: "Scan the QR code with your authenticator app, or type in the key, "
                + "then enter the \(Self.digits)-digit code the app shows.",
            qrCodeSVG: try QRCodeSVG.render(uri), manualEntryKey: key)
        return EnrollmentChallenge(
            response: try JSONValueEncoder().encode(response).objectValue ?? JSONObject(), state: secret,
            display: display)
    }

    /// Checks the code against the session's secret; the secret becomes the enrolment's state and the code's step
    /// its first replay mark.
    public func finalizeEnrollment(
        _ info: JSONObject, state: [UInt8], for user: UserRecord, in context: FactorContext
    ) async throws -> EnrolledFactor {
        let code = try Self.verificationInfo.reader(info).credential("verificationCode", missing: .missingCode)
        guard let step = try Self.matchingStep(code, secret: state, in: context) else { throw Self.invalidCode }
        return EnrolledFactor(publicInfo: ["totpInfo": [:]], state: state, replayMark: step)
    }

    /// Accepts a code whose step is within the window; its step is the replay mark, which the router records only
    /// when it is later than the last accepted one, so of two servers racing one code exactly one succeeds.
    public func verifySignIn(
        _ enrollment: Enrollment, _ info: JSONObject, state: [UInt8]?, in context: FactorContext
    ) async throws -> SignInVerdict {
        let code = try Self.verificationInfo.reader(info, excluding: ["sessionInfo"])
            .credential("verificationCode", missing: .missingCode)
        guard !enrollment.state.isEmpty else {
            throw AuthError(.mfaEnrollmentNotFound, "The TOTP enrolment has no secret; enrol again.")
        }
        guard let step = try Self.matchingStep(code, secret: enrollment.state, in: context) else {
            throw Self.invalidCode
        }
        return SignInVerdict(replayMark: step)
    }

    /// The step within the configured window whose code is `code`, or nil.
    static func matchingStep(_ code: String, secret: [UInt8], in context: FactorContext) throws -> Int64? {
        let window = context.config.mfa.totpAdjacentIntervals ?? TOTPProviderConfig.defaultAdjacentIntervals
        let generator = try OneTimePassword(secret: secret, algorithm: .sha1, digits: digits, period: period)
        return try generator.matchingStep(code, at: Int64(context.now.timeIntervalSince1970), window: window)
    }

    private static var invalidCode: AuthError {
        AuthError(.invalidCode, "The verification code is not valid.")
    }
}
