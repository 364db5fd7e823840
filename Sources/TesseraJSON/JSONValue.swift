/// A JSON value as RFC 8259 defines it, keeping what Tessera's contract needs to tell apart.
///
/// Numbers keep the distinction between integers and other numbers: `5` is ``integer(_:)``, while `5.5`, `5.0`
/// and `1e2` are ``double(_:)``, because the contract rejects a non-integer where it wants an integer. An integer
/// literal too large for `Int64` becomes a ``double(_:)``. Objects keep their members in order (see ``JSONObject``).
///
/// Equality follows JSON's data model: object members compare regardless of order, and `.integer(5)` differs from
/// `.double(5)`.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits `Int64`.
    case integer(Int64)
    /// Any other number: with a fraction or an exponent, or too large for `Int64`. Always finite when parsed.
    case double(Double)
    /// A string (any valid Unicode text).
    case string(String)
    /// An array of values.
    case array([JSONValue])
    /// An object: members in order, with unique keys.
    case object(JSONObject)
}
