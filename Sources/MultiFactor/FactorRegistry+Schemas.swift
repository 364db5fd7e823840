public import TesseraJSON

/// The params and result schemas of the multi-factor methods for `rpc.discover`, built from the fixed members and
/// every registered factor's members.
extension FactorRegistry {
    /// `mfaEnrollment.start` params.
    public var enrollmentStartParams: JSONValue {
        Self.object(
            fixed: [("idToken", Self.string), ("tenantId", Self.string), ("languageCode", Self.string)],
            factorMembers: factors.map(\.descriptor.enrollmentInfo), required: ["idToken"])
    }

    /// `mfaEnrollment.start` result: one of the factors' result members.
    public var enrollmentStartResult: JSONValue {
        Self.object(fixed: [], factorMembers: factors.map(\.descriptor.enrollmentResult), required: [])
    }

    /// `mfaEnrollment.finalize` params.
    public var enrollmentFinalizeParams: JSONValue {
        Self.object(
            fixed: [("idToken", Self.string), ("displayName", Self.string), ("tenantId", Self.string)],
            factorMembers: factors.map(\.descriptor.verificationInfo), required: ["idToken"])
    }

    /// `mfaSignIn.start` params.
    public var signInStartParams: JSONValue {
        Self.object(
            fixed: [
                ("mfaPendingCredential", Self.string), ("mfaEnrollmentId", Self.string), ("tenantId", Self.string),
                ("languageCode", Self.string),
            ],
            factorMembers: factors.compactMap(\.descriptor.signInStart?.info),
            required: ["mfaPendingCredential", "mfaEnrollmentId"])
    }

    /// `mfaSignIn.start` result.
    public var signInStartResult: JSONValue {
        Self.object(fixed: [], factorMembers: factors.compactMap(\.descriptor.signInStart?.result), required: [])
    }

    /// `mfaSignIn.finalize` params.
    public var signInFinalizeParams: JSONValue {
        Self.object(
            fixed: [
                ("mfaPendingCredential", Self.string), ("mfaEnrollmentId", Self.string), ("tenantId", Self.string),
            ],
            factorMembers: factors.map(\.descriptor.verificationInfo), required: ["mfaPendingCredential"])
    }

    private static let string: JSONValue = ["type": "string"]

    private static func object(
        fixed: [(String, JSONValue)], factorMembers: [FactorMember], required: [String]
    ) -> JSONValue {
        let properties = JSONObject(
            fixed.map { (key: $0.0, value: $0.1) } + factorMembers.map { (key: $0.name, value: $0.schema) })
        return [
            "type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }),
            "additionalProperties": false,
        ]
    }
}
