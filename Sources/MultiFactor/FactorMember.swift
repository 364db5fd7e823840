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
}
