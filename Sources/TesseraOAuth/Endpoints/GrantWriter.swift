import TesseraLoop
import TesseraPostgres

/// A statement that writes several grants of one kind at once, over a `VALUES` row of each grant's parameters: its
/// text for `n` grants takes, for each grant in turn, an ordinal (0 for the first) and then
/// ``parametersPerGrant`` parameters; each grant it wrote has one row, which carries the grant's ordinal in column
/// ``ordinalColumn``, and a grant that wrote nothing has none.
struct BatchedGrantStatement: Sendable {
    /// The parameters of one grant after its ordinal.
    let parametersPerGrant: Int
    /// The column of a row that holds its grant's ordinal.
    let ordinalColumn: Int
    private let texts: [String]

    /// The statement whose grants' parameters have the SQL types `parameterTypes` (after the ordinal, an `integer`),
    /// and whose text is `text` of the `VALUES` rows of 1 to `maxBatch` grants (`($1::integer, $2::…), (…)`).
    init(parameterTypes: [String], ordinalColumn: Int, maxBatch: Int, text: (String) -> String) {
        parametersPerGrant = parameterTypes.count
        self.ordinalColumn = ordinalColumn
        let types = ["integer"] + parameterTypes
        texts = (1...maxBatch).map { grants in
            let rows = (0..<grants).map { grant in
                let row = types.enumerated().map { column, type in "$\(grant * types.count + column + 1)::\(type)" }
                return "(\(row.joined(separator: ", ")))"
            }
            return text(rows.joined(separator: ", "))
        }
    }

    /// The most grants one statement writes.
    var maxBatch: Int { texts.count }

    /// The statement's text for `grants` grants.
    func text(grants: Int) -> String { texts[grants - 1] }
}

/// The grants of one kind on one loop, written several to a statement (a ``BatchedGrantStatement``) as
/// ``GrantBatches`` decides: one statement out at a time, and the grants that arrive meanwhile share the next, so
/// that a busy server commits once for several grants (a database's CPU a grant is mostly its commit's:
/// docs/benchmarks.md, "2026-11-29, 11:40 UTC"). A grant that arrives while none is out is sent at once. Use it only
/// on its pool's loop.
final class GrantWriter: @unchecked Sendable {
    /// One grant: its key (no two of one key share a statement) and its parameters after the ordinal.
    struct Grant {
        let key: [UInt8]
        let parameters: [any PostgresEncodable]
        let answer: CheckedContinuation<PostgresRow?, any Error>
    }

    private let pool: PostgresPool
    private let statement: BatchedGrantStatement
    private var batches: GrantBatches<Grant>
    /// Statements sent, for tests.
    private(set) var statementsSent = 0

    /// The writer of `statement` on `pool`'s loop.
    init(pool: PostgresPool, statement: BatchedGrantStatement) {
        self.pool = pool
        self.statement = statement
        batches = GrantBatches(maxInFlight: 1, maxBatch: statement.maxBatch) { $0.key }
    }

    /// Writes one grant and returns its row, or nil when it wrote nothing. Grants of one `key` (a code, a family)
    /// never share a statement: the second waits for the next. Each grant commits before this returns. A statement
    /// that fails for a reason other than the database's being unavailable (a deadlock between two servers'
    /// statements among them) is tried again for each of its grants alone, so that one grant's failure is only
    /// its own.
    func write(key: [UInt8], parameters: [any PostgresEncodable]) async throws -> PostgresRow? {
        pool.loop.preconditionInEventLoop()
        return try await withCheckedThrowingContinuation { answer in
            let grant = Grant(key: key, parameters: parameters, answer: answer)
            if let batch = batches.arrived(grant) { send(batch) }
        }
    }

    private func send(_ batch: [Grant]) {
        statementsSent += 1
        Task(executorPreference: pool.loop) {
            await self.answer(batch)
            if let next = self.batches.answered() { self.send(next) }
        }
    }

    private func answer(_ batch: [Grant]) async {
        do {
            for (grant, row) in zip(batch, try await rows(of: batch)) { grant.answer.resume(returning: row) }
        } catch let error as PostgresError where batch.count > 1 && !error.isTemporary {
            for grant in batch {
                do {
                    grant.answer.resume(returning: try await rows(of: [grant])[0])
                } catch {
                    grant.answer.resume(throwing: error)
                }
            }
        } catch {
            for grant in batch { grant.answer.resume(throwing: error) }
        }
    }

    /// The rows of `batch`'s grants in its order, nil for a grant that wrote nothing.
    private func rows(of batch: [Grant]) async throws -> [PostgresRow?] {
        var parameters: [any PostgresEncodable] = []
        parameters.reserveCapacity(batch.count * (statement.parametersPerGrant + 1))
        for (ordinal, grant) in batch.enumerated() {
            parameters.append(ordinal)
            parameters += grant.parameters
        }
        let result = try await pool.query(statement.text(grants: batch.count), parameters)
        var rows = [PostgresRow?](repeating: nil, count: batch.count)
        for row in result.rows {
            let ordinal = try row.decode(Int.self, at: statement.ordinalColumn)
            guard rows.indices.contains(ordinal) else { throw PostgresError(.decoding, message: "no grant \(ordinal)") }
            rows[ordinal] = row
        }
        return rows
    }
}

/// One ``GrantWriter`` of a statement for each loop of a database client.
final class GrantWriters: Sendable {
    private let database: PostgresClient
    private let writers: [GrantWriter]

    /// Writers of `statement` for every pool of `database`.
    init(database: PostgresClient, statement: BatchedGrantStatement) {
        self.database = database
        writers = database.poolsByLoop.map { GrantWriter(pool: $0, statement: statement) }
    }

    /// Writes one grant with the writer of the calling loop's pool (``GrantWriter/write(key:parameters:)``).
    func write(key: [UInt8], parameters: [any PostgresEncodable]) async throws -> PostgresRow? {
        try await database.withPool { pool in
            try await self.writers[pool.loop.index].write(key: key, parameters: parameters)
        }
    }

    /// The writer of `pool`'s loop (tests read its ``GrantWriter/statementsSent``).
    func writer(for pool: PostgresPool) -> GrantWriter { writers[pool.loop.index] }
}
