import ArgumentParser
import TesseraLoop
import TesseraPostgres

/// Runs `body` with a database client of one loop and one connection to `url`, for a command that does its work
/// once and exits; the client is shut down after, whatever `body` does. An unreachable database is a one-line
/// error (exit 2).
func withCommandDatabase<T>(url: String, _ body: (PostgresClient) async throws -> T) async throws -> T {
    let group = try EventLoopGroup(loopCount: 1)
    defer { group.shutdown() }
    let database = PostgresClient(configuration: PostgresConfiguration(url: url, connectionsPerLoop: 1), group: group)
    do {
        try await database.start(timeout: .seconds(10))
    } catch {
        throw ValidationError(error.message)
    }
    return try await database.shuttingDown { try await body(database) }
}
