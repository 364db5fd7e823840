import ArgumentParser
import FoundationEssentials
import Logging
import TesseraCore
import TesseraPostgres
import TesseraServer

/// `tessera janitor`: one pass of the janitor, which deletes expired rows (docs/operations.md), then exits; for
/// cron, or for servers run with `--retention-interval 0`. A pass that found more expired rows than it deletes
/// is followed by another at once, as a server's janitor does. Safe beside running servers: a pass that finds
/// another server's janitor at work deletes nothing.
struct JanitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "janitor", abstract: "Delete expired rows once (one janitor pass) and exit.")

    @Option(help: "libpq connection string or URI (TESSERA_DATABASE_URL). Required.")
    var databaseURL: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = databaseURL ?? environment["TESSERA_DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw ValidationError("--database-url (or TESSERA_DATABASE_URL) is required")
        }
        let logger = makeLogger(environment: environment)
        try await withCommandDatabase(url: url) { database in
            let janitor = Janitor(database: database, clock: SystemWallClock(), logger: logger)
            do {
                var pass = try await janitor.runPass()
                var deleted = pass.deleted
                while pass.ranAlone && !pass.complete {
                    pass = try await janitor.runPass()
                    deleted.merge(pass.deleted, uniquingKeysWith: +)
                }
                for (table, count) in deleted.sorted(by: { $0.key < $1.key }) { print("\(table) \(count)") }
                if !pass.ranAlone {
                    logger.info("another server's janitor is at work; this pass deleted what it could")
                }
            } catch {
                throw ValidationError("janitor pass failed: \(error)")
            }
        }
    }
}
