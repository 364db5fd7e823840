public import FoundationEssentials

/// A Swift value that can be a statement parameter.
public protocol PostgresEncodable: Sendable {
    /// The value as libpq sends it.
    var postgresBind: PostgresBind { get }
}

extension PostgresBind: PostgresEncodable {
    /// A parameter already encoded (one of a ``PostgresQuery``'s binds, run on its own) is sent as it is.
    public var postgresBind: PostgresBind { self }
}

extension String: PostgresEncodable {
    public var postgresBind: PostgresBind { PostgresBind(type: PostgresType.text, format: 0, bytes: Array(utf8)) }
}

extension Int: PostgresEncodable {
    public var postgresBind: PostgresBind {
        PostgresBind(type: PostgresType.int8, format: 0, bytes: Array(String(self).utf8))
    }
}

extension Int64: PostgresEncodable {
    public var postgresBind: PostgresBind {
        PostgresBind(type: PostgresType.int8, format: 0, bytes: Array(String(self).utf8))
    }
}

extension Int32: PostgresEncodable {
    public var postgresBind: PostgresBind {
        PostgresBind(type: PostgresType.int4, format: 0, bytes: Array(String(self).utf8))
    }
}

extension Bool: PostgresEncodable {
    public var postgresBind: PostgresBind {
        PostgresBind(type: PostgresType.bool, format: 0, bytes: [self ? UInt8(ascii: "t") : UInt8(ascii: "f")])
    }
}

extension Array: PostgresEncodable where Element == UInt8 {
    /// Byte arrays are `bytea`, sent in binary.
    public var postgresBind: PostgresBind { PostgresBind(type: PostgresType.bytea, format: 1, bytes: self) }
}

extension UUID: PostgresEncodable {
    public var postgresBind: PostgresBind {
        PostgresBind(type: PostgresType.uuid, format: 0, bytes: Array(uuidString.lowercased().utf8))
    }
}

extension Date: PostgresEncodable {
    /// Dates are `timestamptz`, sent as UTC text with microseconds.
    public var postgresBind: PostgresBind {
        PostgresBind(type: PostgresType.timestamptz, format: 0, bytes: PostgresTimestamp.bytes(of: self))
    }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    /// `nil` is SQL NULL.
    public var postgresBind: PostgresBind {
        switch self {
        case .some(let value): value.postgresBind
        case .none: .null
        }
    }
}

/// JSON text for a `jsonb` column or parameter.
public struct PostgresJSONB: PostgresEncodable, Equatable {
    /// The JSON document as text.
    public let text: String
    /// Wraps JSON text.
    public init(_ text: String) { self.text = text }
    public var postgresBind: PostgresBind { PostgresBind(type: PostgresType.jsonb, format: 0, bytes: Array(text.utf8)) }
}
