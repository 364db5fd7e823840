public import TesseraPostgres

/// Something that runs SQL: a loop's pool (each statement its own transaction) or an open transaction. Stores
/// take one so the same query serves both a single call and a step of a larger atomic change.
public protocol SQLRunner {
    /// Runs one statement.
    @discardableResult
    func query(_ sql: String, _ parameters: [any PostgresEncodable]) async throws(PostgresError) -> PostgresResult
}

extension PostgresPool: SQLRunner {}
extension PostgresTransaction: SQLRunner {}

extension PostgresError {
    /// Whether this is a unique violation of the index or constraint named `name`.
    func violates(_ name: String) -> Bool {
        kind == .uniqueViolation && message.contains(name)
    }
}
