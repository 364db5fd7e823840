/// Why a JSON value could not be decoded into a type, and where: every message names the field by its dotted path,
/// so it can be shown to the client as it is (`missing field 'email'`, `field 'pageSize' must be an integer`,
/// `unknown field 'phoneEnrollmentInfo.phonNumber'`).
public struct JSONDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of faults.
    public enum Kind: Sendable, Hashable {
        /// A required member is absent.
        case missingField
        /// The value has the wrong JSON type; `expected` is the wanted type with its article ("an integer").
        case typeMismatch(expected: String)
        /// An object member that the type does not know.
        case unknownField
        /// A number that does not fit the field's type (an `Int8`, a `UInt` given a negative number, ...).
        case outOfRange
        /// The type rejected the value for its own reasons, explained by `reason`.
        case invalidValue(reason: String)
    }

    /// What went wrong.
    public var kind: Kind
    /// Where: the field concerned (for ``Kind/missingField`` and ``Kind/unknownField``, that field itself).
    public var path: JSONPath

    /// Creates an error.
    public init(_ kind: Kind, at path: JSONPath) {
        self.kind = kind
        self.path = path
    }

    /// The field's dotted path (empty for the top-level value).
    public var field: String { path.description }

    /// A one-line message for the client.
    public var message: String {
        let subject = path.isRoot ? "value" : "field '\(path)'"
        switch kind {
        case .missingField: return "missing \(subject)"
        case .typeMismatch(let expected): return "\(subject) must be \(expected)"
        case .unknownField: return "unknown \(subject)"
        case .outOfRange: return "\(subject) is out of range"
        case .invalidValue(let reason): return "\(subject) is invalid: \(reason)"
        }
    }

    /// The ``message``.
    public var description: String { message }
}
