/// A database failure, classified so that callers can react without parsing messages.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// The server is unreachable or the connection broke; the request may not have run. Surfaces to
        /// clients as `UNAVAILABLE`.
        case unavailable
        /// A unique constraint was violated (SQLSTATE 23505).
        case uniqueViolation
        /// A serializable transaction lost a race (SQLSTATE 40001) or a deadlock was detected (40P01):
        /// retrying the whole transaction may succeed.
        case serializationFailure
        /// The statement ran past `statement_timeout` or was cancelled (SQLSTATE 57014).
        case timeout
        /// A statement earlier in the same request failed, so this one was not run.
        case aborted
        /// Any other error the server reported.
        case server
        /// A result could not be decoded into the requested Swift type.
        case decoding
    }

    /// The classification.
    public let kind: Kind
    /// The five-character SQLSTATE when the server sent one.
    public let sqlState: String?
    /// The server's or the driver's message. It may name tables and constraints, so it goes to the log,
    /// never to a client.
    public let message: String

    /// Whether the database could not serve the request for now, so the client may retry it later: unreachable,
    /// or a statement that ran out of time (a lock held by a commit waiting for a synchronous standby, an
    /// overloaded server). Everything else is a bug.
    public var isTemporary: Bool { kind == .unavailable || kind == .timeout }

    /// Creates an error.
    public init(_ kind: Kind, sqlState: String? = nil, message: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
    }

    /// Classifies a server error by its SQLSTATE.
    static func server(sqlState: String?, message: String) -> PostgresError {
        let kind: Kind
        switch sqlState {
        case "23505": kind = .uniqueViolation
        case "40001", "40P01": kind = .serializationFailure
        case "57014": kind = .timeout
        case let state? where state.hasPrefix("08") || state == "57P01" || state == "57P02" || state == "57P03":
            kind = .unavailable
        // The database cannot take the write now: read-only (a standby, or default_transaction_read_only), out
        // of disk, memory or connections. Nothing was written (the statement's transaction rolled back), and a
        // client may try again later: the same answer as an unreachable database.
        case "25006", "53100", "53200", "53300":
            kind = .unavailable
        default: kind = .server
        }
        return PostgresError(kind, sqlState: sqlState, message: message)
    }

    /// `kind (SQLSTATE): message`.
    public var description: String {
        "\(kind)\(sqlState.map { " (\($0))" } ?? ""): \(message)"
    }
}
