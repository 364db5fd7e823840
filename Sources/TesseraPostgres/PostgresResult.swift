internal import CLibPQ

/// The rows of one statement. It owns libpq's result, which is immutable, so it may cross threads.
public final class PostgresResult: @unchecked Sendable {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) {
        self.result = result
    }

    deinit { PQclear(result) }

    /// How many rows the statement returned.
    public var rowCount: Int { Int(PQntuples(result)) }

    /// How many rows an INSERT, UPDATE or DELETE touched (0 for other statements).
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The column names in order.
    public var columns: [String] {
        (0..<PQnfields(result)).map { String(cString: PQfname(result, $0)) }
    }

    /// The row at `index` (0-based).
    public subscript(index: Int) -> PostgresRow {
        precondition(index >= 0 && index < rowCount, "row \(index) out of range 0..<\(rowCount)")
        return PostgresRow(result: self, index: Int32(index))
    }

    /// Every row in order.
    public var rows: [PostgresRow] { (0..<rowCount).map { self[$0] } }

    /// Decodes one cell; NULL decodes only into an optional. Inlinable so that callers get it specialized for the
    /// type they decode (decoding runs for every cell of every row).
    @inlinable
    func decode<T: PostgresDecodable>(_ type: T.Type, row: Int32, column: Int32) throws(PostgresError) -> T {
        guard let bytes = try cell(row: row, column: column) else {
            guard let null = T.postgresNull else { throw unexpectedNull(T.self, column: column) }
            return null
        }
        guard let value = T(postgresText: bytes) else { throw notDecodable(T.self, column: column) }
        return value
    }

    /// The text of one cell; nil for NULL.
    @usableFromInline
    func cell(row: Int32, column: Int32) throws(PostgresError) -> UnsafeBufferPointer<UInt8>? {
        guard column >= 0 && column < PQnfields(result) else {
            throw PostgresError(.decoding, message: "column \(column) does not exist")
        }
        if PQgetisnull(result, row, column) == 1 { return nil }
        let length = Int(PQgetlength(result, row, column))
        let bytes = UnsafeRawPointer(PQgetvalue(result, row, column)).assumingMemoryBound(to: UInt8.self)
        return UnsafeBufferPointer(start: bytes, count: length)
    }

    @usableFromInline
    func unexpectedNull(_ type: Any.Type, column: Int32) -> PostgresError {
        PostgresError(.decoding, message: "column \(columnName(column)) is NULL, \(type) expected")
    }

    @usableFromInline
    func notDecodable(_ type: Any.Type, column: Int32) -> PostgresError {
        PostgresError(.decoding, message: "column \(columnName(column)) is not a valid \(type)")
    }

    /// The index of a named column.
    func column(named name: String) throws(PostgresError) -> Int32 {
        let index = PQfnumber(result, "\"\(name)\"")
        guard index >= 0 else { throw PostgresError(.decoding, message: "no column named \(name)") }
        return index
    }

    private func columnName(_ column: Int32) -> String { String(cString: PQfname(result, column)) }
}

/// One row of a ``PostgresResult``.
public struct PostgresRow: Sendable {
    @usableFromInline let result: PostgresResult
    @usableFromInline let index: Int32

    /// Decodes the cell at a column position (0-based).
    @inlinable
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, at column: Int) throws(PostgresError) -> T {
        try result.decode(type, row: index, column: Int32(column))
    }

    /// Decodes the cell of a named column.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, _ column: String) throws(PostgresError) -> T {
        try result.decode(type, row: index, column: result.column(named: column))
    }
}
