internal import CLibPQ

/// Asks a PostgreSQL server whether it accepts connections, without opening a session.
public enum DatabaseProbe {
    /// What the server answered.
    public enum Answer: Sendable, Equatable {
        /// The server accepts connections.
        case accepting
        /// The server is up but refuses connections now (starting up, shutting down, in recovery).
        case rejecting
        /// Nothing answered at that address.
        case noResponse
        /// The connection string itself is invalid, so no attempt was made.
        case invalidURL
    }

    /// Pings the server named by a libpq connection string or URI. This blocks for up to `timeoutSeconds`:
    /// call it at start-up or through `EventLoop.offload`, never on a loop.
    public static func ping(_ url: String, timeoutSeconds: Int = 3) -> Answer {
        let withTimeout = appendingConnectTimeout(to: url, seconds: timeoutSeconds)
        switch PQping(withTimeout) {
        case PQPING_OK: return .accepting
        case PQPING_REJECT: return .rejecting
        case PQPING_NO_RESPONSE: return .noResponse
        default: return .invalidURL
        }
    }

    /// Whether libpq can parse the connection string (a key=value list or a postgres URI).
    public static func isValidURL(_ url: String) -> Bool {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            PQfreemem(message)
            return false
        }
        PQconninfoFree(options)
        return true
    }

    /// Adds `connect_timeout` unless the caller set one, in the syntax of the string it is given.
    private static func appendingConnectTimeout(to url: String, seconds: Int) -> String {
        guard !url.contains("connect_timeout") else { return url }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            return url + (url.contains("?") ? "&" : "?") + "connect_timeout=\(seconds)"
        }
        return url + " connect_timeout=\(seconds)"
    }
}
