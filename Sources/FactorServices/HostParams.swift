import FoundationEssentials
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraJSON

/// The params of a factor protocol call as a factor service reads them (`docs/factor-protocol.md` §3): anything
/// missing or of the wrong shape is `INVALID_ARGUMENT` (-32602), which Tessera treats as a fault of the call.
struct HostParams {
    let params: JSONObject

    init(_ params: JSONObject) {
        self.params = params
    }

    func object(_ key: String) throws -> JSONObject {
        guard let object = params[key]?.objectValue else { throw invalid("\(key) must be an object") }
        return object
    }

    func bytes(_ key: String) throws -> [UInt8]? {
        guard let value = params[key], !value.isNull else { return nil }
        guard let text = value.stringValue, let bytes = try? Base64URL.decode(text) else {
            throw invalid("\(key) must be base64url")
        }
        return bytes
    }

    func user() throws -> UserRecord {
        let user = try object("user")
        guard let id = user["localId"]?.stringValue else { throw invalid("user.localId is required") }
        return UserRecord(
            userID: id, tenantID: user["tenantId"]?.stringValue, email: user["email"]?.stringValue,
            emailVerified: user["emailVerified"]?.boolValue ?? false, phoneNumber: user["phoneNumber"]?.stringValue,
            displayName: user["displayName"]?.stringValue, passwordHash: nil, phoneSignIn: false, disabled: false,
            createdAt: Date(timeIntervalSince1970: 0), lastLoginAt: nil,
            tokensValidAfter: Date(timeIntervalSince1970: 0))
    }

    func session() throws -> FactorSession {
        let session = try object("session")
        guard let handle = session["sessionInfo"]?.stringValue,
            let expiresAt = session["expiresAt"]?.stringValue.flatMap(RFC3339.date(from:))
        else { throw invalid("session must have sessionInfo and expiresAt") }
        return FactorSession(sessionInfo: handle, expiresAt: expiresAt)
    }

    func context(
        database: any SQLRunner, keyRing: KeyRing, user: UserRecord, factor: FactorID
    ) throws -> FactorContext {
        let context = try object("context")
        guard let now = context["now"]?.stringValue.flatMap(RFC3339.date(from:)) else {
            throw invalid("context.now must be an RFC 3339 time")
        }
        var project = ProjectConfig()
        project.displayName = context["issuerName"]?.stringValue ?? project.displayName
        if let mfa = context["mfaConfig"]?.objectValue {
            project.mfa = try MultiFactorAuthConfig(json: mfa)
        }
        if let regions = context["smsRegionConfig"]?.objectValue {
            project.smsRegionConfig = try SMSRegionConfig(json: regions)
        }
        if let quota = context["smsDailyQuota"]?.intValue {
            project.smsDailyQuota = quota
        }
        for (number, code) in context["testPhoneNumbers"]?.objectValue ?? [:] {
            project.signIn.phoneNumber.testPhoneNumbers[number] = code.stringValue
        }
        var config = EffectiveConfig(project: project)
        config.tenantId = context["tenantId"]?.stringValue
        let enrollments = try (params["enrollments"]?.arrayValue ?? []).map { value throws in
            guard let object = value.objectValue else { throw invalid("enrollments must be objects") }
            return try Self.enrollment(object, of: user, factor: factor)
        }
        return FactorContext(
            database: database, config: config, now: now, keyRing: keyRing,
            languageCode: context["languageCode"]?.stringValue, clientAddress: context["clientAddress"]?.stringValue,
            appVerifiedByServer: context["appVerifiedByServer"]?.boolValue ?? false, enrollments: enrollments,
            user: user)
    }

    func enrollment(of user: UserRecord, factor: FactorID) throws -> Enrollment {
        try Self.enrollment(try object("enrollment"), of: user, factor: factor)
    }

    private static func enrollment(_ object: JSONObject, of user: UserRecord, factor: FactorID) throws -> Enrollment {
        guard let id = object["mfaEnrollmentId"]?.stringValue else {
            throw HostParams([:]).invalid("enrollment.mfaEnrollmentId is required")
        }
        let state = try object["enrollmentState"]?.stringValue.map { text in
            guard let bytes = try? Base64URL.decode(text) else {
                throw HostParams([:]).invalid("enrollment.enrollmentState must be base64url")
            }
            return bytes
        }
        return Enrollment(
            id: id, userID: user.userID, factor: factor, displayName: object["displayName"]?.stringValue,
            enrolledAt: object["enrolledAt"]?.stringValue.flatMap(RFC3339.date(from:))
                ?? Date(timeIntervalSince1970: 0),
            publicInfo: object["publicInfo"]?.objectValue ?? [:], maskedInfo: object["maskedInfo"]?.objectValue,
            state: state ?? [])
    }

    func invalid(_ detail: String) -> HostError {
        HostError(code: -32602, reason: "INVALID_ARGUMENT", detail: detail)
    }
}
