public import TesseraCore
public import TesseraJSON

/// The JSON forms of the login page description, for factors whose descriptor is built from a JSON document at
/// run time (a remote factor service). Members are named as the Swift properties; optional ones may be absent or
/// `null`; unknown members are refused, so a misspelt one is found. Every error is `INVALID_ARGUMENT` and names
/// the member's path.
extension FactorLoginPages {
    /// Reads `{enrollButton, enrollFields?, enrollTitle, enrollInstructions?, enrollmentLabel,
    /// signInInstructions, code, resend?}`.
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        let reader = try FactorJSONReader(
            json,
            known: [
                "enrollButton", "enrollFields", "enrollTitle", "enrollInstructions", "enrollmentLabel",
                "signInInstructions", "code", "resend",
            ],
            at: path)
        var fields: [FactorInputField] = []
        for (index, value) in try reader.array("enrollFields").enumerated() {
            let fieldPath = reader.path("enrollFields", index)
            guard let object = value.objectValue else {
                throw AuthError(.invalidArgument, "\(fieldPath) must be an object")
            }
            fields.append(try FactorInputField(json: object, at: fieldPath))
        }
        self.init(
            enrollButton: try reader.requiredString("enrollButton"), enrollFields: fields,
            enrollTitle: try reader.requiredString("enrollTitle"),
            enrollInstructions: try reader.string("enrollInstructions"),
            enrollmentLabel: try reader.requiredString("enrollmentLabel"),
            signInInstructions: try reader.requiredString("signInInstructions"),
            code: try FactorCodeField(json: try reader.requiredObject("code"), at: reader.path("code")),
            resend: try reader.bool("resend") ?? false)
    }

    /// The JSON form, every member written (optional ones when set).
    public var json: JSONObject {
        var object: JSONObject = [
            "enrollButton": .string(enrollButton), "enrollFields": .array(enrollFields.map { .object($0.json) }),
            "enrollTitle": .string(enrollTitle),
        ]
        if let enrollInstructions { object["enrollInstructions"] = .string(enrollInstructions) }
        object["enrollmentLabel"] = .string(enrollmentLabel)
        object["signInInstructions"] = .string(signInInstructions)
        object["code"] = .object(code.json)
        object["resend"] = .bool(resend)
        return object
    }
}

extension FactorInputField {
    /// Reads `{name, label, inputType?, autocomplete?, hint?, required?, infoKey?, normalization?}`; `inputType`
    /// defaults to `text`, `required` to true, `infoKey` to `name`; `normalization` is one of
    /// ``FactorInputNormalization``'s raw values.
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        let reader = try FactorJSONReader(
            json,
            known: ["name", "label", "inputType", "autocomplete", "hint", "required", "infoKey", "normalization"],
            at: path)
        var normalization: FactorInputNormalization?
        if let name = try reader.string("normalization") {
            guard let known = FactorInputNormalization(rawValue: name) else {
                let names = FactorInputNormalization.allCases.map(\.rawValue).joined(separator: ", ")
                throw AuthError(.invalidArgument, "\(reader.path("normalization")) must be one of \(names)")
            }
            normalization = known
        }
        self.init(
            name: try reader.requiredString("name"), label: try reader.requiredString("label"),
            inputType: try reader.string("inputType") ?? "text", autocomplete: try reader.string("autocomplete"),
            hint: try reader.string("hint"), required: try reader.bool("required") ?? true,
            infoKey: try reader.string("infoKey"), normalization: normalization)
    }

    /// The JSON form, every member written (optional ones when set).
    public var json: JSONObject {
        var object: JSONObject = [
            "name": .string(name), "label": .string(label), "inputType": .string(inputType),
        ]
        if let autocomplete { object["autocomplete"] = .string(autocomplete) }
        if let hint { object["hint"] = .string(hint) }
        object["required"] = .bool(required)
        object["infoKey"] = .string(infoKey)
        if let normalization { object["normalization"] = .string(normalization.rawValue) }
        return object
    }
}

extension FactorCodeField {
    /// Reads `{infoKey, label?, length?, numeric?}`; `label` defaults to `Verification code`, `length` (1 to 64)
    /// to 6, `numeric` to true.
    public init(json: JSONObject, at path: JSONPath = JSONPath()) throws(AuthError) {
        let reader = try FactorJSONReader(json, known: ["infoKey", "label", "length", "numeric"], at: path)
        var isNumeric = true
        if let value = reader.member("numeric") {
            guard case .bool(let flag) = value else {
                throw AuthError(.invalidArgument, "\(reader.path("numeric")) must be a boolean")
            }
            isNumeric = flag
        }
        var length = 6
        if let value = reader.member("length") {
            guard let number = value.intValue, (1...64).contains(number) else {
                throw AuthError(.invalidArgument, "\(reader.path("length")) must be an integer from 1 to 64")
            }
            length = number
        }
        self.init(
            infoKey: try reader.requiredString("infoKey"), label: try reader.string("label") ?? "Verification code",
            length: length, isNumeric: isNumeric)
    }

    /// The JSON form: `{infoKey, label, length, numeric}`.
    public var json: JSONObject {
        [
            "infoKey": .string(infoKey), "label": .string(label), "length": .integer(Int64(length)),
            "numeric": .bool(isNumeric),
        ]
    }
}

/// Strict member-by-member reading of one object of a factor's self-description.
struct FactorJSONReader {
    private let object: JSONObject
    private let base: JSONPath

    /// Refuses members outside `known`.
    init(_ object: JSONObject, known: Set<String>, at base: JSONPath) throws(AuthError) {
        self.object = object
        self.base = base
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            throw AuthError(.invalidArgument, "\(path(unknown)) is not a known member")
        }
    }

    /// The path of member `key`, or of element `index` of it.
    func path(_ key: String, _ index: Int? = nil) -> JSONPath {
        var components = base.components + [.key(key)]
        if let index { components.append(.index(index)) }
        return JSONPath(components)
    }

    /// The member, where `null` reads as absent.
    func member(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    /// The string member `key`, or nil when absent.
    func string(_ key: String) throws(AuthError) -> String? {
        guard let value = member(key) else { return nil }
        guard let text = value.stringValue else { throw AuthError(.invalidArgument, "\(path(key)) must be a string") }
        return text
    }

    /// The string member `key`; absent or empty is refused.
    func requiredString(_ key: String) throws(AuthError) -> String {
        guard let text = try string(key), !text.isEmpty else {
            throw AuthError(.invalidArgument, "\(path(key)) is required")
        }
        return text
    }

    /// The boolean member `key`, or nil when absent.
    func bool(_ key: String) throws(AuthError) -> Bool? {
        guard let value = member(key) else { return nil }
        guard let flag = value.boolValue else { throw AuthError(.invalidArgument, "\(path(key)) must be a boolean") }
        return flag
    }

    /// The array member `key`; empty when absent.
    func array(_ key: String) throws(AuthError) -> [JSONValue] {
        guard let value = member(key) else { return [] }
        guard let elements = value.arrayValue else {
            throw AuthError(.invalidArgument, "\(path(key)) must be an array")
        }
        return elements
    }

    /// The object member `key`; absent is refused.
    func requiredObject(_ key: String) throws(AuthError) -> JSONObject {
        guard let value = member(key) else { throw AuthError(.invalidArgument, "\(path(key)) is required") }
        guard let members = value.objectValue else {
            throw AuthError(.invalidArgument, "\(path(key)) must be an object")
        }
        return members
    }
}
