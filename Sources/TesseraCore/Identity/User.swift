public import TesseraJSON

/// A user as the API shows it (API §3 `User`): to its owner through `accounts.lookup` and to admins.
public struct User: Codable, Sendable, Equatable {
    public var localId: String
    public var email: String?
    public var emailVerified: Bool
    public var phoneNumber: String?
    public var displayName: String?
    public var disabled: Bool
    /// RFC 3339.
    public var createdAt: String
    /// RFC 3339; absent until the first completed sign-in.
    public var lastLoginAt: String?
    public var tenantId: String?
    /// `password` and/or `phone`: the first factors this user can sign in with.
    public var providers: [String]
    public var mfaInfo: [MFAEnrollment]
}

/// One second-factor enrolment as the API shows it (API §3 object `MfaEnrollment`): its id, display name and date,
/// and the members its factor adds (`phoneInfo`, `totpInfo`, …) side by side with them in the JSON object. The
/// factor's plugin decides those members: the full phone number for the owner and admins, the masked one in a
/// challenge, `totpInfo: {}` for TOTP.
public struct MFAEnrollment: Codable, Sendable, Equatable, JSONSchemaDescribing {
    public var mfaEnrollmentId: String
    public var displayName: String?
    /// RFC 3339.
    public var enrolledAt: String
    /// The factor's members, encoded next to the common ones.
    public var factorInfo: JSONObject
    /// The id of the enrolment's factor (`totp`, `phone`), for the server's own use (the login pages find the
    /// factor's descriptor by it). Not part of the API object: never encoded, nil when decoded, and set where the
    /// multi-factor router describes an enrolment.
    public var factorID: String?

    /// Creates an enrolment description.
    public init(
        mfaEnrollmentId: String, displayName: String?, enrolledAt: String, factorInfo: JSONObject,
        factorID: String? = nil
    ) {
        self.mfaEnrollmentId = mfaEnrollmentId
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.factorInfo = factorInfo
        self.factorID = factorID
    }

    private static let commonKeys: Set<String> = ["mfaEnrollmentId", "displayName", "enrolledAt"]

    /// Reads the common members and keeps every other member as factor info.
    public init(from decoder: any Decoder) throws {
        var object = try JSONObject(from: decoder)
        guard let id = object["mfaEnrollmentId"]?.stringValue, let enrolledAt = object["enrolledAt"]?.stringValue else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "mfaEnrollmentId and enrolledAt are required"))
        }
        mfaEnrollmentId = id
        self.enrolledAt = enrolledAt
        displayName = object["displayName"]?.stringValue
        for key in Self.commonKeys { object[key] = nil }
        factorInfo = object
    }

    /// Writes the common members, then the factor's.
    public func encode(to encoder: any Encoder) throws {
        var object = JSONObject()
        object["mfaEnrollmentId"] = .string(mfaEnrollmentId)
        if let displayName { object["displayName"] = .string(displayName) }
        object["enrolledAt"] = .string(enrolledAt)
        for member in factorInfo.members where !Self.commonKeys.contains(member.key) {
            object[member.key] = member.value
        }
        try object.encode(to: encoder)
    }

    /// The common members, and any factor members.
    public static var jsonSchema: JSONValue {
        [
            "type": "object",
            "properties": [
                "mfaEnrollmentId": ["type": "string"], "displayName": ["type": "string"],
                "enrolledAt": ["type": "string"], "phoneInfo": ["type": "string"], "totpInfo": ["type": "object"],
            ],
            "required": ["mfaEnrollmentId", "enrolledAt"],
        ]
    }

    /// An example enrolment.
    public static var schemaExample: MFAEnrollment {
        MFAEnrollment(mfaEnrollmentId: "", displayName: nil, enrolledAt: "", factorInfo: JSONObject())
    }
}
