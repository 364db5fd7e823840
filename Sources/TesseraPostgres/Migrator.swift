internal import CLibPQ

#if canImport(Glibc)
import Glibc
#endif

/// Applies migrations in order, each in its own transaction, under a PostgreSQL advisory lock so that a
/// fleet starting together migrates once: the others wait for the lock, then find nothing left to do.
///
/// It uses its own blocking connection (migrations are multi-statement scripts, which need the simple
/// query protocol that pipeline mode forbids), so run it at start-up or through `EventLoop.offload`,
/// never on a loop.
public enum Migrator {
    /// Why migrating failed.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// One line: which migration or step failed and what the server said.
        public let description: String
    }

    /// The time limit of connecting to each host when the connection string sets no `connect_timeout`.
    static let defaultConnectTimeoutSeconds = 10

    /// The advisory lock key ("tessera" in ASCII, as a number).
    static let lockKey: Int64 = 0x7465_7373_6572_61

    /// Applies every migration not yet recorded in `tessera_migrations`, in the order given (modules in
    /// order, versions ascending within each). Returns the ones it applied.
    @discardableResult
    public static func migrate(url: String, migrations: [Migration]) throws(Failure) -> [Migration] {
        try validate(migrations)
        // libpq's blocking connect moves on to the next host of a multi-host string after connect_timeout, but
        // waits forever on a host that accepts and never answers when the string sets none: give it one.
        var settings = [("dbname", url)]
        if PostgresHosts(conninfo: url).connectTimeout == nil {
            settings.append(("connect_timeout", String(defaultConnectTimeoutSeconds)))
        }
        let connection = withCStrings(settings.map(\.0)) { keywords in
            withCStrings(settings.map(\.1)) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let connection else { throw Failure(description: "cannot allocate a connection") }
        defer { PQfinish(connection) }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        guard PQstatus(connection) == CONNECTION_OK else {
            throw Failure(description: "database unreachable: \(message(connection))")
        }
        try execute(connection, "SELECT pg_advisory_lock(\(lockKey))", step: "taking the migration lock")
        defer { _ = try? execute(connection, "SELECT pg_advisory_unlock(\(lockKey))", step: "unlock") }
        try execute(
            connection,
            """
            CREATE TABLE IF NOT EXISTS tessera_migrations (
                module text NOT NULL,
                version integer NOT NULL,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (module, version)
            )
            """, step: "creating tessera_migrations")
        let applied = try appliedVersions(connection)
        var done: [Migration] = []
        for migration in migrations where !applied.contains(Key(migration)) {
            try execute(connection, "BEGIN", step: migration.label)
            do {
                try execute(connection, migration.sql, step: migration.label)
                try record(migration, connection)
                try execute(connection, "COMMIT", step: migration.label)
            } catch {
                _ = try? execute(connection, "ROLLBACK", step: "rollback")
                throw error
            }
            done.append(migration)
        }
        return done
    }

    /// Refuses duplicate or non-positive versions and versions out of order within a module.
    static func validate(_ migrations: [Migration]) throws(Failure) {
        var last: [String: Int] = [:]
        for migration in migrations {
            guard migration.version > last[migration.module, default: 0] else {
                throw Failure(description: "migration \(migration.label) is out of order or repeated")
            }
            last[migration.module] = migration.version
        }
    }

    private struct Key: Hashable {
        let module: String
        let version: Int
        init(_ migration: Migration) {
            module = migration.module
            version = migration.version
        }
        init(module: String, version: Int) {
            self.module = module
            self.version = version
        }
    }

    private static func appliedVersions(_ connection: OpaquePointer) throws(Failure) -> Set<Key> {
        guard let result = PQexec(connection, "SELECT module, version FROM tessera_migrations") else {
            throw Failure(description: "reading tessera_migrations: \(message(connection))")
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else {
            throw Failure(description: "reading tessera_migrations: \(message(connection))")
        }
        var keys: Set<Key> = []
        for row in 0..<PQntuples(result) {
            let module = String(cString: PQgetvalue(result, row, 0))
            let version = Int(String(cString: PQgetvalue(result, row, 1))) ?? -1
            keys.insert(Key(module: module, version: version))
        }
        return keys
    }

    private static func record(_ migration: Migration, _ connection: OpaquePointer) throws(Failure) {
        let values = [migration.module, String(migration.version), migration.name]
        let copies = values.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { UnsafePointer($0) }
        guard
            let result = PQexecParams(
                connection, "INSERT INTO tessera_migrations (module, version, name) VALUES ($1, $2::integer, $3)",
                3, nil, pointers, nil, nil, 0)
        else { throw Failure(description: "\(migration.label): \(message(connection))") }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw Failure(description: "\(migration.label): \(message(connection))")
        }
    }

    private static func execute(_ connection: OpaquePointer, _ sql: String, step: String) throws(Failure) {
        guard let result = PQexec(connection, sql) else {
            throw Failure(description: "\(step): \(message(connection))")
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw Failure(description: "\(step): \(message(connection))")
        }
    }

    private static func message(_ connection: OpaquePointer) -> String {
        String(cString: PQerrorMessage(connection)).split(whereSeparator: \.isNewline).first.map(String.init)
            ?? "unknown error"
    }
}
