internal import CLibPQ

/// One pipelined request: its statements (each preceded by a `Parse` when not yet prepared), the results
/// gathered so far, and the task waiting for them. A request ends with its own sync, so a failing statement
/// aborts only the rest of its own request.
final class PendingRequest {
    /// One step of the request as the server answers it.
    enum Step {
        /// Preparing `sql` (its result is dropped unless it failed).
        case prepare(sql: String)
        /// Running a statement (its result is returned).
        case execute
    }

    let steps: [Step]
    private var results: [OpaquePointer] = []
    private let continuation: CheckedContinuation<[PostgresResult], any Error>

    init(steps: [Step], continuation: CheckedContinuation<[PostgresResult], any Error>) {
        self.steps = steps
        self.continuation = continuation
    }

    /// Keeps one result of the next step.
    func record(_ result: OpaquePointer) {
        results.append(result)
    }

    /// Ends the request at its sync: resumes the caller with one result per statement, or with the first
    /// error. Returns the SQL texts whose `Parse` failed or was not run (after a failure), which the connection
    /// must forget.
    func complete() -> [String] {
        var failedPrepares: [String] = []
        var firstError: PostgresError?
        var rows: [PostgresResult] = []
        for (index, result) in results.enumerated() {
            let step = index < steps.count ? steps[index] : .execute
            switch PQresultStatus(result) {
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                if case .execute = step { rows.append(PostgresResult(result)) } else { PQclear(result) }
            case PGRES_PIPELINE_ABORTED:
                // Not run, so not prepared either: a later request must send its Parse again.
                if case .prepare(let sql) = step { failedPrepares.append(sql) }
                firstError = firstError ?? PostgresError(.aborted, message: "not run: an earlier statement failed")
                PQclear(result)
            default:
                if case .prepare(let sql) = step { failedPrepares.append(sql) }
                firstError = firstError ?? Self.error(from: result)
                PQclear(result)
            }
        }
        results = []
        if let firstError {
            continuation.resume(throwing: firstError)
        } else {
            continuation.resume(returning: rows)
        }
        return failedPrepares
    }

    /// Fails the request without results (the connection is gone).
    func fail(_ error: PostgresError) {
        for result in results { PQclear(result) }
        results = []
        continuation.resume(throwing: error)
    }

    private static func error(from result: OpaquePointer) -> PostgresError {
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message =
            PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            ?? String(cString: PQresultErrorMessage(result))
        return PostgresError.server(sqlState: state, message: message)
    }
}
