public import TesseraCore
public import TesseraJSON

/// What a first-factor sign-in returns (API §3): tokens, or, when a second factor is due, a challenge.
public enum SignInOutcome: Codable, Sendable, Equatable, JSONSchemaDescribing {
    /// Signed in (possibly with `mfaEnrollmentRequired`).
    case tokens(TokenResult)
    /// A second factor is due.
    case challenge(MFAChallenge)

    /// Encodes the tokens or the challenge as they are.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .tokens(let tokens): try tokens.encode(to: encoder)
        case .challenge(let challenge): try challenge.encode(to: encoder)
        }
    }

    /// A challenge when `mfaPendingCredential` is present, else tokens.
    public init(from decoder: any Decoder) throws {
        let object = try JSONObject(from: decoder)
        let value = JSONValue.object(object)
        self =
            object["mfaPendingCredential"] == nil
            ? .tokens(try JSONValueDecoder().decode(TokenResult.self, from: value))
            : .challenge(try JSONValueDecoder().decode(MFAChallenge.self, from: value))
    }

    /// One of the two shapes.
    public static var jsonSchema: JSONValue {
        ["oneOf": [JSONSchema.of(TokenResult.self), JSONSchema.of(MFAChallenge.self)]]
    }

    /// A challenge.
    public static var schemaExample: SignInOutcome {
        .challenge(MFAChallenge(mfaPendingCredential: "", mfaInfo: [], localId: ""))
    }
}

/// The MFA challenge of a sign-in (API §3): no tokens, a pending credential and the usable enrolments, masked.
public struct MFAChallenge: Codable, Sendable, Equatable {
    public var mfaPendingCredential: String
    public var mfaInfo: [MFAEnrollment]
    public var localId: String

    /// A challenge with every part given.
    public init(mfaPendingCredential: String, mfaInfo: [MFAEnrollment], localId: String) {
        self.mfaPendingCredential = mfaPendingCredential
        self.mfaInfo = mfaInfo
        self.localId = localId
    }
}
