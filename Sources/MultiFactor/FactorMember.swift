public import TesseraCore
public import TesseraJSON

/// A member a factor adds to the params or the result of a multi-factor method (`totpEnrollmentInfo`,
/// `totpSessionInfo`), with the JSON Schema that `rpc.discover` shows for it.
public struct FactorMember: Sendable {
    /// The member's name.
    public var name: String
    /// The schema of its value.
    public var schema: JSONValue

    /// A member named `name` whose value `schema` describes.
    public init(_ name: String, schema: JSONValue) {
        self.name = name
        self.schema = schema
    }

    /// `info`, a value of this member, ready to be read: members outside the schema's `properties` (when it sets
    /// `additionalProperties` to false) and members in `excluded` are refused with `INVALID_ARGUMENT`, as
    /// ``ParamReader/init(_:member:excluding:)`` describes. Factors read their info objects with it, so their
    /// param names are written once.
    public func reader(_ info: JSONObject, excluding excluded: Set<String> = []) throws(AuthError) -> ParamReader {
        try ParamReader(info, member: self, excluding: excluded)
    }
}
