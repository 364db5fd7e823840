import TesseraJSON

/// Strict readers for configuration JSON.
///
/// Each reader names the dotted path of what it rejects (`mfaConfig.providerConfigs[0].state`), so an admin can find
/// the mistake, and throws the reason its caller chooses for that part of the configuration (`INVALID_CONFIG` for
/// MFA and SMS settings, `INVALID_ARGUMENT` elsewhere).
enum ConfigJSON {
    /// The longest display name, in characters.
    static let maximumDisplayNameLength = 128

    /// The member's value, where `null` reads as absent: the proto3 JSON mapping, which Identity Toolkit clients
    /// follow, treats `null` as "not set", so `"mfaConfig": null` clears a tenant's override.
    static func member(_ key: String, of object: JSONObject) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    /// Throws when the object has a key outside `known`.
    static func requireKnownKeys(
        of object: JSONObject, _ known: Set<String>, at path: JSONPath, reason: AuthReason
    ) throws(AuthError) {
        for key in object.keys where !known.contains(key) {
            throw AuthError(reason, "\(path.appending(key)) is not a known field")
        }
    }

    /// The value as an object.
    static func object(_ value: JSONValue, at path: JSONPath, reason: AuthReason) throws(AuthError) -> JSONObject {
        guard case .object(let object) = value else { throw AuthError(reason, "\(path.named) must be an object") }
        return object
    }

    /// The value as an array.
    static func array(_ value: JSONValue, at path: JSONPath, reason: AuthReason) throws(AuthError) -> [JSONValue] {
        guard case .array(let elements) = value else { throw AuthError(reason, "\(path.named) must be an array") }
        return elements
    }

    /// The value as a boolean; anything else (`"true"`, `1`) is `INVALID_ARGUMENT`.
    static func bool(_ value: JSONValue, at path: JSONPath) throws(AuthError) -> Bool {
        guard case .bool(let flag) = value else {
            throw AuthError(.invalidArgument, "\(path.named) must be a boolean")
        }
        return flag
    }

    /// The value as a JSON integer inside `range`; a double (`5.0`) or a string (`"5"`) is refused.
    static func integer(
        _ value: JSONValue, in range: ClosedRange<Int>, at path: JSONPath, reason: AuthReason
    ) throws(AuthError) -> Int {
        guard let number = value.intValue, range.contains(number) else {
            throw AuthError(
                reason, "\(path.named) must be an integer from \(range.lowerBound) to \(range.upperBound)"
            )
        }
        return number
    }

    /// The value as one of an enumeration's raw strings.
    static func enumeration<Value: RawRepresentable & CaseIterable>(
        _ value: JSONValue, at path: JSONPath, reason: AuthReason
    ) throws(AuthError) -> Value where Value.RawValue == String {
        guard let text = value.stringValue, let parsed = Value(rawValue: text) else {
            let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw AuthError(reason, "\(path.named) must be one of \(names)")
        }
        return parsed
    }

    /// The value as a display name: a string of 1 to 128 characters without control characters (it becomes the
    /// TOTP issuer inside `otpauth://` URIs and is shown in authenticator apps). Always `INVALID_ARGUMENT`.
    static func displayName(_ value: JSONValue, at path: JSONPath) throws(AuthError) -> String {
        guard let name = value.stringValue else {
            throw AuthError(.invalidArgument, "\(path.named) must be a string")
        }
        guard (1...maximumDisplayNameLength).contains(name.count) else {
            throw AuthError(.invalidArgument, "\(path.named) must have 1 to \(maximumDisplayNameLength) characters")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AuthError(.invalidArgument, "\(path.named) must not contain control characters")
        }
        return name
    }
}
