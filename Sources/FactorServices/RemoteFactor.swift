import FoundationEssentials
public import MultiFactor
public import TesseraCore
import TesseraCrypto
public import TesseraJSON

/// A second factor that runs as a factor service (`docs/factor-protocol.md`): each step of the ``Factor`` protocol
/// is one signed JSON-RPC call. The router treats it exactly like a built-in factor: it keeps the state the service
/// returns (sealed), every counter, lock, session and replay mark, and gives attempts back when the service fails.
public struct RemoteFactor: Factor {
    /// The checked descriptor the service gave at registration.
    public let described: FactorServiceDescriptor
    /// How the service is called.
    public let client: FactorServiceClient

    /// The factor described by `described`, reached through `client`.
    public init(described: FactorServiceDescriptor, client: FactorServiceClient) {
        self.described = described
        self.client = client
    }

    /// The router's view of the service.
    public var descriptor: FactorDescriptor { described.descriptor }

    /// Enabled as its built-in namesake is when it takes the place of one (`phone`: `PHONE_SMS` in
    /// `enabledProviders`; `totp`: an enabled `totpProviderConfig`, API §4 rule 2); any other by a `providerConfigs`
    /// entry with `factorServiceProviderConfig: {factorId}` (the effective config).
    public func isEnabled(by config: MultiFactorAuthConfig) -> Bool {
        switch described.id {
        case "phone": config.isPhoneEnabled
        case "totp": config.totpAdjacentIntervals != nil
        default: config.enablesFactorService(described.id)
        }
    }

    /// `factor.startEnrollment`.
    public func startEnrollment(
        _ info: JSONObject, for user: UserRecord, session: FactorSession, in context: FactorContext
    ) async throws -> EnrollmentChallenge {
        let result = try await client.call(
            "factor.startEnrollment",
            [
                "user": .object(Self.user(user)), "info": .object(info), "session": .object(Self.session(session)),
                "context": .object(Self.context(context, tenantID: user.tenantID)),
                "enrollments": .array(context.enrollments.map { .object(Self.enrollment($0, withState: false)) }),
            ])
        let response = try Self.object(result, "response")
        guard response["sessionInfo"]?.stringValue == session.sessionInfo else {
            throw Self.malformed("factor.startEnrollment", "response.sessionInfo is not the session's")
        }
        let display = try Self.object(result, "display")
        guard let instructions = display["instructions"]?.stringValue else {
            throw Self.malformed("factor.startEnrollment", "display.instructions is missing")
        }
        return EnrollmentChallenge(
            response: response, state: try Self.bytes(result, "state") ?? [],
            display: EnrollmentDisplay(
                instructions: instructions, qrCodeSVG: display["qrCodeSVG"]?.stringValue,
                manualEntryKey: display["manualEntryKey"]?.stringValue))
    }

    /// `factor.finalizeEnrollment`.
    public func finalizeEnrollment(
        _ info: JSONObject, state: [UInt8], for user: UserRecord, in context: FactorContext
    ) async throws -> EnrolledFactor {
        let result = try await client.call(
            "factor.finalizeEnrollment",
            [
                "user": .object(Self.user(user)), "info": .object(info), "state": .string(Base64URL.encode(state)),
                "context": .object(Self.context(context, tenantID: user.tenantID)),
                "enrollments": .array(context.enrollments.map { .object(Self.enrollment($0, withState: false)) }),
            ])
        let uniqueKey = result["uniqueKey"]?.stringValue
        guard uniqueKey.map({ (1...256).contains($0.utf8.count) }) ?? (result["uniqueKey"] == nil) else {
            throw Self.malformed("factor.finalizeEnrollment", "uniqueKey must be a string of 1 to 256 bytes")
        }
        return EnrolledFactor(
            publicInfo: try Self.object(result, "publicInfo"), maskedInfo: result["maskedInfo"]?.objectValue,
            state: try Self.bytes(result, "enrollmentState") ?? [], replayMark: try Self.mark(result),
            uniqueKey: uniqueKey)
    }

    /// `factor.startSignIn`.
    public func startSignIn(
        _ enrollment: Enrollment, _ info: JSONObject, session: FactorSession, in context: FactorContext
    ) async throws -> SignInChallenge {
        let result = try await client.call(
            "factor.startSignIn",
            [
                "user": .object(context.user.map(Self.user) ?? [:]),
                "enrollment": .object(Self.enrollment(enrollment, withState: true)), "info": .object(info),
                "session": .object(Self.session(session)),
                "context": .object(Self.context(context, tenantID: context.user?.tenantID)),
            ])
        let response = try Self.object(result, "response")
        guard response["sessionInfo"]?.stringValue == session.sessionInfo else {
            throw Self.malformed("factor.startSignIn", "response.sessionInfo is not the session's")
        }
        return SignInChallenge(response: response, state: try Self.bytes(result, "state") ?? [])
    }

    /// `factor.verifySignIn`.
    public func verifySignIn(
        _ enrollment: Enrollment, _ info: JSONObject, state: [UInt8]?, in context: FactorContext
    ) async throws -> SignInVerdict {
        let result = try await client.call(
            "factor.verifySignIn",
            [
                "user": .object(context.user.map(Self.user) ?? [:]),
                "enrollment": .object(Self.enrollment(enrollment, withState: true)), "info": .object(info),
                "state": state.map { .string(Base64URL.encode($0)) } ?? .null,
                "context": .object(Self.context(context, tenantID: context.user?.tenantID)),
            ])
        return SignInVerdict(replayMark: try Self.mark(result), state: try Self.bytes(result, "enrollmentState"))
    }

    static func user(_ user: UserRecord) -> JSONObject {
        var object: JSONObject = ["localId": .string(user.userID), "emailVerified": .bool(user.emailVerified)]
        if let tenantID = user.tenantID { object["tenantId"] = .string(tenantID) }
        if let email = user.email { object["email"] = .string(email) }
        if let phoneNumber = user.phoneNumber { object["phoneNumber"] = .string(phoneNumber) }
        if let displayName = user.displayName { object["displayName"] = .string(displayName) }
        return object
    }

    static func session(_ session: FactorSession) -> JSONObject {
        ["sessionInfo": .string(session.sessionInfo), "expiresAt": .string(RFC3339.string(from: session.expiresAt))]
    }

    static func context(_ context: FactorContext, tenantID: String?) -> JSONObject {
        var object: JSONObject = [
            "now": .string(RFC3339.string(from: context.now)), "issuerName": .string(context.config.issuerName),
            "appVerifiedByServer": .bool(context.appVerifiedByServer), "mfaConfig": .object(context.config.mfa.json),
        ]
        if let tenantID { object["tenantId"] = .string(tenantID) }
        if let languageCode = context.languageCode { object["languageCode"] = .string(languageCode) }
        if let clientAddress = context.clientAddress { object["clientAddress"] = .string(clientAddress) }
        // What a sending factor needs of the tenant's settings (the SMS factor's test numbers, regions and quota).
        object["testPhoneNumbers"] = .object(
            JSONObject(
                context.config.testPhoneNumbers.sorted { $0.key < $1.key }
                    .map { (key: $0.key, value: JSONValue.string($0.value)) }))
        object["smsRegionConfig"] = .object(context.config.smsRegionConfig.json)
        object["smsDailyQuota"] = .integer(Int64(context.config.smsDailyQuota))
        return object
    }

    static func enrollment(_ enrollment: Enrollment, withState: Bool) -> JSONObject {
        var object: JSONObject = [
            "mfaEnrollmentId": .string(enrollment.id),
            "enrolledAt": .string(RFC3339.string(from: enrollment.enrolledAt)),
            "publicInfo": .object(enrollment.publicInfo),
        ]
        if let displayName = enrollment.displayName { object["displayName"] = .string(displayName) }
        if let masked = enrollment.maskedInfo { object["maskedInfo"] = .object(masked) }
        if withState { object["enrollmentState"] = .string(Base64URL.encode(enrollment.state)) }
        return object
    }

    private static func object(_ result: JSONObject, _ key: String) throws -> JSONObject {
        guard let object = result[key]?.objectValue else { throw malformed("the answer", "\(key) must be an object") }
        return object
    }

    /// The binary member `key` (base64url, at most 4096 bytes), nil when absent or null.
    private static func bytes(_ result: JSONObject, _ key: String) throws -> [UInt8]? {
        guard let value = result[key], !value.isNull else { return nil }
        guard let text = value.stringValue, let bytes = try? Base64URL.decode(text), bytes.count <= 4096 else {
            throw malformed("the answer", "\(key) must be base64url of at most 4096 bytes")
        }
        return bytes
    }

    private static func mark(_ result: JSONObject) throws -> Int64? {
        guard let value = result["replayMark"], !value.isNull else { return nil }
        guard let mark = value.int64Value else { throw malformed("the answer", "replayMark must be an integer") }
        return mark
    }

    private static func malformed(_ method: String, _ detail: String) -> AuthError {
        FactorServiceClient.unavailable("The factor service answered \(method) out of protocol: \(detail).")
    }
}
