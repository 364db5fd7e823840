public import TesseraCore
public import TesseraJSON

/// The params of a multi-factor call, or a factor's info object within them, read member by member: members outside
/// the list given are refused (`INVALID_ARGUMENT`, which catches typos, API §2), and so are members of the wrong
/// type. Factors read their info objects with it too.
public struct ParamReader {
    private let object: JSONObject

    /// The params in `object`, of which only `allowed` may appear.
    public init(_ object: JSONObject, allowed: Set<String>) throws(AuthError) {
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw AuthError(.invalidArgument, "Unknown param \(unknown).")
        }
        self.object = object
    }

    /// A factor's info object read against the member that declares it (``FactorMember/reader(_:excluding:)``), so
    /// that the names a factor accepts are written once, in its schema: the keys of the schema's `properties` may
    /// appear, or any key when the schema does not set `additionalProperties` to false. `excluded` are members the
    /// schema declares for one method that the other must refuse: a verification info serves both finalize
    /// methods, but TOTP takes `sessionInfo` only at enrolment and SMS takes `phoneNumber` only at sign-in.
    public init(_ object: JSONObject, member: FactorMember, excluding excluded: Set<String> = []) throws(AuthError) {
        let schema = member.schema.objectValue ?? JSONObject()
        let closed = schema["additionalProperties"] == .bool(false)
        let declared = Set(schema["properties"]?.objectValue?.keys ?? [])
        if let unknown = object.keys.first(where: { excluded.contains($0) || (closed && !declared.contains($0)) }) {
            throw AuthError(.invalidArgument, "Unknown param \(unknown).")
        }
        self.object = object
    }

    /// The string member `key`, or nil when absent.
    public func string(_ key: String) throws(AuthError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw AuthError(.invalidArgument, "\(key) must be a string.") }
        return text
    }

    /// The string member `key`; absent or empty is `missing`.
    public func credential(_ key: String, missing: AuthReason) throws(AuthError) -> String {
        guard let text = try string(key), !text.isEmpty else { throw AuthError(missing, "\(key) is required.") }
        return text
    }

    /// The object member `key`, or nil when absent.
    public func object(_ key: String) throws(AuthError) -> JSONObject? {
        guard let value = object[key], value != .null else { return nil }
        guard let members = value.objectValue else { throw AuthError(.invalidArgument, "\(key) must be an object.") }
        return members
    }

    /// The one member among `choices` (member name → factor) that is present, with its factor; none or several
    /// are `INVALID_ARGUMENT`.
    func exactlyOne(of choices: [(name: String, factor: any Factor)]) throws(AuthError) -> (any Factor, JSONObject) {
        var found: [(any Factor, JSONObject)] = []
        for choice in choices {
            if let info = try object(choice.name) { found.append((choice.factor, info)) }
        }
        guard found.count == 1, let only = found.first else {
            let names = choices.map(\.name).joined(separator: ", ")
            throw AuthError(.invalidArgument, "Exactly one of \(names) is required.")
        }
        return only
    }
}
