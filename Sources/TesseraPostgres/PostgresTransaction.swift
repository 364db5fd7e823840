/// Statements inside one transaction, on the connection the transaction leased.
///
/// `BEGIN` travels with the first statement in one pipelined request, so a transaction of N statements
/// costs N + 1 round trips (the last one is `COMMIT`).
public final class PostgresTransaction {
    private let connection: PostgresConnection
    private let begin: String
    private(set) var begun = false

    init(connection: PostgresConnection, begin: String) {
        self.connection = connection
        self.begin = begin
    }

    /// Runs one statement in the transaction.
    @discardableResult
    public func query(
        _ sql: String, _ parameters: [any PostgresEncodable] = []
    ) async throws(PostgresError)
        -> PostgresResult
    {
        try await pipeline([PostgresQuery(sql, parameters)])[0]
    }

    /// Runs statements in the transaction in one round trip.
    public func pipeline(_ queries: [PostgresQuery]) async throws(PostgresError) -> [PostgresResult] {
        if begun { return try await connection.run(queries) }
        begun = true
        return Array(try await connection.run([PostgresQuery(begin)] + queries).dropFirst())
    }
}
