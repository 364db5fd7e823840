/// Code that answers a request. Handlers never throw: a failure is a response (500 or better) like any other.
public enum HTTPHandler: Sendable {
    /// Answered inline on the event loop, with no task: only for work that is tiny and never waits (`/healthz`).
    case immediate(@Sendable (HTTPRequest) -> HTTPResponse)
    /// Answered in a task that runs on the connection's event loop and may suspend (database, offloaded work).
    case async(@Sendable (HTTPRequest) async -> HTTPResponse)
}
