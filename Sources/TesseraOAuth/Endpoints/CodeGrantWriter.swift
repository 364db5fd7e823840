import TesseraLoop
import TesseraPostgres

/// The code grants of cached clients on one loop, written several to a statement
/// (``TokenEndpoint/cachedClientStatement(grants:)``) as ``GrantBatches`` decides: one statement out at a time, and
/// the grants that arrive meanwhile share the next, so that a busy server commits once for several grants (a
/// database's CPU a grant is mostly its commit's: docs/benchmarks.md, "2026-11-29, 11:40 UTC"). A grant that arrives
/// while none is out is sent at once. Use it only on its pool's loop.
final class CodeGrantWriter: @unchecked Sendable {
    /// One grant: its code's digest (no two of one code share a statement) and its parameters, those of
    /// ``TokenEndpoint/cachedClientStatement(grants:)`` for one code after the ordinal.
    struct Grant {
        let codeDigest: [UInt8]
        let parameters: [any PostgresEncodable]
        let answer: CheckedContinuation<PostgresRow?, any Error>
    }

    /// The most grants one statement writes.
    static let maxBatch = 16

    private let pool: PostgresPool
    private var batches = GrantBatches<Grant>(maxInFlight: 1, maxBatch: maxBatch) { $0.codeDigest }
    /// Statements sent, for tests.
    private(set) var statementsSent = 0

    /// The writer of `pool`'s loop.
    init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Writes one code grant and returns its row, or nil when the code was already spent (a replay). Each grant
    /// commits before this returns. A statement that fails for a reason other than the database's being
    /// unavailable is tried again for each of its grants alone, so that one grant's failure is only its own.
    func write(codeDigest: [UInt8], parameters: [any PostgresEncodable]) async throws -> PostgresRow? {
        pool.loop.preconditionInEventLoop()
        return try await withCheckedThrowingContinuation { answer in
            let grant = Grant(codeDigest: codeDigest, parameters: parameters, answer: answer)
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

    /// The rows of `batch`'s grants in its order, nil for a code already spent.
    private func rows(of batch: [Grant]) async throws -> [PostgresRow?] {
        var parameters: [any PostgresEncodable] = []
        parameters.reserveCapacity(batch.count * (TokenEndpoint.cachedClientParameterCount + 1))
        for (ordinal, grant) in batch.enumerated() {
            parameters.append(ordinal)
            parameters += grant.parameters
        }
        let result = try await pool.query(TokenEndpoint.cachedClientStatement(grants: batch.count), parameters)
        var rows = [PostgresRow?](repeating: nil, count: batch.count)
        for row in result.rows {
            let ordinal = try row.decode(Int.self, at: TokenEndpoint.cachedClientOrdinalColumn)
            guard rows.indices.contains(ordinal) else { throw PostgresError(.decoding, message: "no grant \(ordinal)") }
            rows[ordinal] = row
        }
        return rows
    }
}

/// One ``CodeGrantWriter`` for each loop of a database client.
final class CodeGrantWriters: Sendable {
    private let writers: [CodeGrantWriter]

    /// Writers for every pool of `database`.
    init(database: PostgresClient) {
        writers = database.poolsByLoop.map(CodeGrantWriter.init(pool:))
    }

    /// The writer of `pool`'s loop.
    func writer(for pool: PostgresPool) -> CodeGrantWriter { writers[pool.loop.index] }
}
