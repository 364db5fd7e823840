public import TesseraCore
public import TesseraJSON

/// The `appVerification` param of the methods that send an SMS code (API §4): proof that the request comes from
/// the real app, as one of reCAPTCHA, an iOS receipt with its secret, or Play Integrity.
public enum AppCredential: Sendable, Hashable {
    /// `{recaptchaToken}`.
    case recaptcha(token: String)
    /// `{iosReceipt, iosSecret}`.
    case ios(receipt: String, secret: String)
    /// `{playIntegrityToken}`.
    case playIntegrity(token: String)

    /// The param's JSON Schema, which is also the list of members ``read(_:)`` accepts. The factors that send codes
    /// embed it in the schemas of their info members.
    public static let schema: JSONValue = [
        "type": "object",
        "properties": [
            "recaptchaToken": ["type": "string"], "iosReceipt": ["type": "string"], "iosSecret": ["type": "string"],
            "playIntegrityToken": ["type": "string"],
        ],
        "additionalProperties": false,
    ]

    /// The members ``schema`` declares.
    private static let members = Set(schema.objectValue?["properties"]?.objectValue?.keys ?? [])

    /// Reads the param: nil when it is absent or an empty object (no credential given). Members of more than one
    /// kind, an unknown member, a non-string member, or an iOS receipt without its secret (or the reverse) are
    /// `INVALID_ARGUMENT`. Empty strings are kept: whether they prove anything is the verifier's call.
    public static func read(_ object: JSONObject?) throws(AuthError) -> AppCredential? {
        guard let object, !object.keys.isEmpty else { return nil }
        if let unknown = object.keys.first(where: { !members.contains($0) }) {
            throw AuthError(.invalidArgument, "Unknown param \(unknown).")
        }
        let recaptcha = try string("recaptchaToken", of: object)
        let receipt = try string("iosReceipt", of: object)
        let secret = try string("iosSecret", of: object)
        let playIntegrity = try string("playIntegrityToken", of: object)
        let kinds = [recaptcha != nil, receipt != nil || secret != nil, playIntegrity != nil].filter { $0 }.count
        guard kinds == 1 else {
            throw AuthError(
                .invalidArgument,
                "appVerification takes exactly one of recaptchaToken, iosReceipt with iosSecret, "
                    + "or playIntegrityToken.")
        }
        if let recaptcha { return .recaptcha(token: recaptcha) }
        if let playIntegrity { return .playIntegrity(token: playIntegrity) }
        guard let receipt, let secret else {
            throw AuthError(.invalidArgument, "appVerification needs both iosReceipt and iosSecret.")
        }
        return .ios(receipt: receipt, secret: secret)
    }

    /// The string member `key` of `object`, or nil when absent or null; `INVALID_ARGUMENT` when not a string.
    /// These are the rules (and the messages) of the multi-factor methods' param reader, which the factors read
    /// their info objects with, so the param reads the same wherever it appears.
    private static func string(_ key: String, of object: JSONObject) throws(AuthError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw AuthError(.invalidArgument, "\(key) must be a string.") }
        return text
    }
}
