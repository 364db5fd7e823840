import ArgumentParser
import FoundationEssentials
import Logging
import TesseraPostgres
import TesseraServer

/// `tessera migrate`: applies pending migrations and exits (API §1). Several at once are safe: an advisory
/// lock makes the others wait, and they find nothing left to do.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply database migrations and exit.")

    @Option(help: "libpq connection string or URI (TESSERA_DATABASE_URL). Required.")
    var databaseURL: String?

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = databaseURL ?? environment["TESSERA_DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw ValidationError("--database-url (or TESSERA_DATABASE_URL) is required")
        }
        let logger = makeLogger(environment: environment)
        let applied = try Migrator.migrate(url: url, migrations: SchemaMigrations.all)
        for migration in applied { logger.info("applied migration \(migration.label)") }
        logger.info("database schema is up to date (\(applied.count) migration(s) applied now)")
    }
}
