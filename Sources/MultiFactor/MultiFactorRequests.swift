import TesseraCore
public import TesseraJSON

/// `mfaEnrollment.start` (API §4): which factor, with its info member, for the user of `idToken`.
public struct EnrollmentStartRequest: Sendable {
    public var idToken: String
    public var tenantID: String?
    public var languageCode: String?
    public var factor: FactorID
    /// The factor's info member (`totpEnrollmentInfo`).
    public var info: JSONObject
    /// The client's IP address, set by the caller from the transport (not a param).
    public var clientAddress: String?
    /// Set (never from a param) by the server's own login pages: see ``FactorContext/appVerifiedByServer``.
    public var appVerifiedByServer = false

    /// A request with every part given.
    public init(idToken: String, tenantID: String?, languageCode: String?, factor: FactorID, info: JSONObject) {
        self.idToken = idToken
        self.tenantID = tenantID
        self.languageCode = languageCode
        self.factor = factor
        self.info = info
    }
}

/// `mfaEnrollment.finalize`: the factor's verification info (with the start step's `sessionInfo`).
public struct EnrollmentFinalizeRequest: Sendable {
    public var idToken: String
    public var tenantID: String?
    public var displayName: String?
    public var factor: FactorID
    /// The factor's verification member (`totpVerificationInfo`).
    public var info: JSONObject

    /// A request with every part given.
    public init(idToken: String, tenantID: String?, displayName: String?, factor: FactorID, info: JSONObject) {
        self.idToken = idToken
        self.tenantID = tenantID
        self.displayName = displayName
        self.factor = factor
        self.info = info
    }
}

/// `mfaSignIn.start`: the enrolment to challenge, and optionally its factor's start info (`phoneSignInInfo`).
public struct SignInStartRequest: Sendable {
    public var pendingCredential: String
    public var enrollmentID: String
    public var tenantID: String?
    public var languageCode: String?
    /// The start info member present in the call, with the factor it names; nil when absent.
    public var info: (factor: FactorID, value: JSONObject)?
    /// The client's IP address, set by the caller from the transport (not a param).
    public var clientAddress: String?
    /// Set (never from a param) by the server's own login pages: see ``FactorContext/appVerifiedByServer``.
    public var appVerifiedByServer = false

    /// A request with every part given.
    public init(
        pendingCredential: String, enrollmentID: String, tenantID: String?, languageCode: String?,
        info: (factor: FactorID, value: JSONObject)?
    ) {
        self.pendingCredential = pendingCredential
        self.enrollmentID = enrollmentID
        self.tenantID = tenantID
        self.languageCode = languageCode
        self.info = info
    }
}

/// `mfaSignIn.finalize`: the code for an enrolment, named by id or, for factors that allow it, by its info.
public struct SignInFinalizeRequest: Sendable {
    public var pendingCredential: String
    public var enrollmentID: String?
    public var tenantID: String?
    public var factor: FactorID
    /// The factor's verification member (`totpVerificationInfo`).
    public var info: JSONObject

    /// A request with every part given.
    public init(pendingCredential: String, enrollmentID: String?, tenantID: String?, factor: FactorID, info: JSONObject)
    {
        self.pendingCredential = pendingCredential
        self.enrollmentID = enrollmentID
        self.tenantID = tenantID
        self.factor = factor
        self.info = info
    }
}

extension FactorRegistry {
    /// Reads `mfaEnrollment.start` params.
    public func enrollmentStart(_ params: JSONObject) throws -> EnrollmentStartRequest {
        let choices = factors.map { (name: $0.descriptor.enrollmentInfo.name, factor: $0) }
        let reader = try ParamReader(
            params, allowed: Set(["idToken", "tenantId", "languageCode"] + choices.map(\.name)))
        let (factor, info) = try reader.exactlyOne(of: choices)
        return EnrollmentStartRequest(
            idToken: try reader.credential("idToken", missing: .missingIDToken),
            tenantID: try reader.string("tenantId"),
            languageCode: try reader.string("languageCode"), factor: factor.descriptor.id, info: info)
    }

    /// Reads `mfaEnrollment.finalize` params.
    public func enrollmentFinalize(_ params: JSONObject) throws -> EnrollmentFinalizeRequest {
        let choices = verificationChoices
        let reader = try ParamReader(
            params, allowed: Set(["idToken", "tenantId", "displayName"] + choices.map(\.name)))
        let (factor, info) = try reader.exactlyOne(of: choices)
        return EnrollmentFinalizeRequest(
            idToken: try reader.credential("idToken", missing: .missingIDToken),
            tenantID: try reader.string("tenantId"),
            displayName: try reader.string("displayName"), factor: factor.descriptor.id, info: info)
    }

    /// Reads `mfaSignIn.start` params.
    public func signInStart(_ params: JSONObject) throws -> SignInStartRequest {
        let choices = factors.compactMap { factor in
            factor.descriptor.signInStart.map { (name: $0.info.name, factor: factor) }
        }
        let reader = try ParamReader(
            params,
            allowed: Set(["mfaPendingCredential", "mfaEnrollmentId", "tenantId", "languageCode"] + choices.map(\.name)))
        let present = try choices.compactMap { choice in try reader.object(choice.name).map { (choice.factor, $0) } }
        guard present.count <= 1 else {
            throw AuthError(
                .invalidArgument, "At most one of \(choices.map(\.name).joined(separator: ", ")) is allowed.")
        }
        return SignInStartRequest(
            pendingCredential: try reader.credential("mfaPendingCredential", missing: .missingMFAPendingCredential),
            enrollmentID: try reader.credential("mfaEnrollmentId", missing: .missingMFAEnrollmentID),
            tenantID: try reader.string("tenantId"), languageCode: try reader.string("languageCode"),
            info: present.first.map { (factor: $0.0.descriptor.id, value: $0.1) })
    }

    /// Reads `mfaSignIn.finalize` params.
    public func signInFinalize(_ params: JSONObject) throws -> SignInFinalizeRequest {
        let choices = verificationChoices
        let reader = try ParamReader(
            params, allowed: Set(["mfaPendingCredential", "mfaEnrollmentId", "tenantId"] + choices.map(\.name)))
        let pendingCredential = try reader.credential("mfaPendingCredential", missing: .missingMFAPendingCredential)
        let (factor, info) = try reader.exactlyOne(of: choices)
        let enrollmentID = try reader.string("mfaEnrollmentId")
        return SignInFinalizeRequest(
            pendingCredential: pendingCredential, enrollmentID: enrollmentID?.isEmpty == true ? nil : enrollmentID,
            tenantID: try reader.string("tenantId"), factor: factor.descriptor.id, info: info)
    }

    private var verificationChoices: [(name: String, factor: any Factor)] {
        factors.map { (name: $0.descriptor.verificationInfo.name, factor: $0) }
    }
}
