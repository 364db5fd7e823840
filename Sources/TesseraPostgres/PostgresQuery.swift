/// One statement with its parameters (`$1`, `$2`, …), sent as a prepared statement.
public struct PostgresQuery: Sendable {
    /// The SQL text; prepared once per connection and reused.
    public let sql: String
    /// The parameters in order.
    public let binds: [PostgresBind]

    /// Creates a statement; `parameters` fill `$1`, `$2`, … in order.
    public init(_ sql: String, _ parameters: [any PostgresEncodable] = []) {
        self.sql = sql
        binds = parameters.map { $0.postgresBind }
    }
}

/// One parameter value as libpq sends it: a type OID, a format, and bytes (nil for NULL).
public struct PostgresBind: Sendable {
    /// The parameter's type OID; 0 lets the server infer it.
    public let type: UInt32
    /// 0 for text, 1 for binary.
    public let format: Int32
    /// The value, or nil for SQL NULL.
    public let bytes: [UInt8]?

    /// Creates a parameter.
    public init(type: UInt32, format: Int32, bytes: [UInt8]?) {
        self.type = type
        self.format = format
        self.bytes = bytes
    }

    /// SQL NULL of an unspecified type.
    public static let null = PostgresBind(type: 0, format: 0, bytes: nil)
}

/// PostgreSQL type OIDs the driver names.
public enum PostgresType {
    public static let bool: UInt32 = 16
    public static let bytea: UInt32 = 17
    public static let int8: UInt32 = 20
    public static let int4: UInt32 = 23
    public static let text: UInt32 = 25
    public static let timestamptz: UInt32 = 1184
    public static let uuid: UInt32 = 2950
    public static let jsonb: UInt32 = 3802
}
