internal import CLibPQ
import TesseraLoop

#if canImport(Glibc)
import Glibc
#endif

/// Applies migrations in order, each in its own transaction, under a PostgreSQL advisory lock so that a
/// fleet starting together migrates once: the others wait for the lock, then find nothing left to do.
///
/// A migration that changes a table serving live traffic needs that table's lock, which waits for every open
/// transaction on it, while every later query on the table waits behind the migration's request. So a migration
/// waits for a lock at most ``lockTimeout``, then rolls back, lets go of what it held, waits a moment and tries again,
/// up to ``attempts`` times; a deadlock with live traffic is retried the same way. A migration that never gets its
/// locks fails with one line that says so, and nothing of it is applied.
///
/// It uses its own blocking connection (migrations are multi-statement scripts, which need the simple
/// query protocol that pipeline mode forbids), so run it at start-up or through `EventLoop.offload`,
/// never on a loop.
public enum Migrator {
    /// Why migrating failed.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// One line: which migration or step failed and what the server said.
        public let description: String
        /// The SQLSTATE of the server's error, if the server answered with one.
        var sqlState: String? = nil

        /// Whether the statement failed for another transaction's locks: it waited longer than the lock timeout
        /// (`55P03`) or was chosen to end a deadlock (`40P01`).
        var isLockConflict: Bool { sqlState == "55P03" || sqlState == "40P01" }
    }

    /// How long a migration waits for a lock before it lets go of its own and tries again.
    static let lockTimeout: Duration = .seconds(2)
    /// How many times a migration tries to take its locks.
    static let attempts = 10

    /// The time limit of connecting to each host when the connection string sets no `connect_timeout`.
    static let defaultConnectTimeoutSeconds = 10

    /// The advisory lock key ("tessera" in ASCII, as a number).
    static let lockKey: Int64 = 0x7465_7373_6572_61

    /// Applies every migration not yet recorded in `tessera_migrations`, in the order given (modules in
    /// order, versions ascending within each). Returns the ones it applied.
    @discardableResult
    public static func migrate(url: String, migrations: [Migration]) throws(Failure) -> [Migration] {
        try migrate(url: url, migrations: migrations, lockTimeout: lockTimeout, attempts: attempts)
    }

    /// ``migrate(url:migrations:)`` with its lock timeout and number of attempts given (tests make them short).
    @discardableResult
    static func migrate(
        url: String, migrations: [Migration], lockTimeout: Duration, attempts: Int
    ) throws(Failure) -> [Migration] {
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
        // At least 1 ms: PostgreSQL reads a lock_timeout of 0 as none.
        let timeout = max(lockTimeout.roundedUpMilliseconds, 1)
        for migration in migrations where !applied.contains(Key(migration)) {
            var attempt = 1
            while true {
                do {
                    try apply(migration, connection, lockTimeoutMilliseconds: timeout)
                    break
                } catch let failure where failure.isLockConflict {
                    guard attempt < attempts else {
                        throw Failure(
                            description: "\(failure.description) (the tables it changes stayed locked by other "
                                + "transactions through \(attempts) attempts of \(timeout) ms: end them, or "
                                + "migrate when the traffic is lower)")
                    }
                    // Let the transactions queued behind the migration's lock request through before asking again.
                    usleep(UInt32(min(attempt * 100, 1_000)) * 1_000)
                    attempt += 1
                }
            }
            done.append(migration)
        }
        return done
    }

    /// Applies one migration and records it, in one transaction whose statements wait for a lock at most
    /// `lockTimeoutMilliseconds`; rolls back on any failure.
    private static func apply(
        _ migration: Migration, _ connection: OpaquePointer, lockTimeoutMilliseconds: UInt64
    ) throws(Failure) {
        try execute(connection, "BEGIN", step: migration.label)
        do {
            try execute(connection, "SET LOCAL lock_timeout = \(lockTimeoutMilliseconds)", step: migration.label)
            try execute(connection, migration.sql, step: migration.label)
            try record(migration, connection)
            try execute(connection, "COMMIT", step: migration.label)
        } catch {
            _ = try? execute(connection, "ROLLBACK", step: "rollback")
            throw error
        }
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
            let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            throw Failure(description: "\(step): \(message(connection))", sqlState: sqlState)
        }
    }

    private static func message(_ connection: OpaquePointer) -> String {
        String(cString: PQerrorMessage(connection)).split(whereSeparator: \.isNewline).first.map(String.init)
            ?? "unknown error"
    }
}
