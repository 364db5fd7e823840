/// Why a value could not be encoded as JSON, and where.
public struct JSONEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of faults.
    public enum Kind: Sendable, Hashable {
        /// NaN or an infinity, which JSON cannot express.
        case nonFiniteNumber
        /// An unsigned integer above `Int64.max`.
        case outOfRange
        /// The type's `encode(to:)` threw; `reason` is what it said.
        case invalidValue(reason: String)
    }

    /// What went wrong.
    public var kind: Kind
    /// Where in the produced value.
    public var path: JSONPath

    /// Creates an error.
    public init(_ kind: Kind, at path: JSONPath) {
        self.kind = kind
        self.path = path
    }

    /// A one-line explanation naming the field.
    public var description: String {
        let subject = path.isRoot ? "value" : "field '\(path)'"
        switch kind {
        case .nonFiniteNumber: return "\(subject) is not a finite number"
        case .outOfRange: return "\(subject) is out of range"
        case .invalidValue(let reason): return "\(subject) cannot be encoded: \(reason)"
        }
    }

    /// Turns whatever `encode(to:)` threw into an encoding error with a path.
    init(wrapping error: any Error, codingPath: [any CodingKey]) {
        switch error {
        case let error as JSONEncodingError:
            self = error
        case EncodingError.invalidValue(_, let context):
            self.init(.invalidValue(reason: context.debugDescription), at: JSONPath(codingPath: context.codingPath))
        default:
            self.init(.invalidValue(reason: String(describing: error)), at: JSONPath(codingPath: codingPath))
        }
    }
}
