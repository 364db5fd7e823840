public import TesseraCore
public import TesseraPostgres

/// The database of a factor service run by ``FactorHost``: each statement on a pool of the calling loop. Without a
/// client (a factor that keeps no table, as TOTP), every query fails as unavailable.
public struct PostgresClientRunner: SQLRunner, Sendable {
    let client: PostgresClient?

    /// Runs statements through `client`, or fails them all without one.
    public init(_ client: PostgresClient?) {
        self.client = client
    }

    /// Runs one statement on a pool of the calling loop.
    public func query(
        _ sql: String, _ parameters: [any PostgresEncodable]
    ) async throws(PostgresError) -> PostgresResult {
        guard let client else { throw PostgresError(.unavailable, message: "this factor service has no database") }
        do {
            return try await client.withPool { pool in try await pool.query(sql, parameters) }
        } catch let error as PostgresError {
            throw error
        } catch {
            throw PostgresError(.unavailable, message: "\(error)")
        }
    }
}
