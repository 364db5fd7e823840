internal import CLibPQ

/// One pipelined request: its statements (each preceded by a `Parse` when not yet prepared), the results
/// gathered so far, and the task waiting for them. A request ends with its own sync, so a failing statement
/// aborts only the rest of its own request.
final class PendingRequest {
    /// One step of the request as the server answers it.
    enum Step {
        /// Preparing `sql`, under a name of its own or as the unnamed statement (its result is dropped unless it
        /// failed).
        case prepare(sql: String, named: Bool)
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
    /// error. Returns the SQL texts whose named `Parse` ran, and those whose named `Parse` failed or was not run
    /// (after a failure, or with no result), for the connection to confirm and to forget.
    func complete() -> (prepared: [String], unprepared: [String]) {
        var prepared: [String] = []
        var unprepared: [String] = []
        var firstError: PostgresError?
        var rows: [PostgresResult] = []
        for index in 0..<max(steps.count, results.count) {
            let step = index < steps.count ? steps[index] : .execute
            let result = index < results.count ? results[index] : nil
            let status = result.map(PQresultStatus)
            if case .prepare(let sql, named: true) = step {
                if status == PGRES_COMMAND_OK { prepared.append(sql) } else { unprepared.append(sql) }
            }
            guard let result, let status else { continue }
            switch status {
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                if case .execute = step { rows.append(PostgresResult(result)) } else { PQclear(result) }
            case PGRES_PIPELINE_ABORTED:
                firstError = firstError ?? PostgresError(.aborted, message: "not run: an earlier statement failed")
                PQclear(result)
            default:
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
        return (prepared, unprepared)
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
