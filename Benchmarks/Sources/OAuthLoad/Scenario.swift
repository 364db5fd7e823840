/// The load scenarios of the OAuth benchmark.
enum Scenario: String, CaseIterable, Sendable {
    /// Authorize with a signed-in session → code → token with PKCE: two requests per operation.
    case cycle
    /// Refresh-token rotation, the new token kept each time: one request per operation.
    case refresh
    /// `client_credentials` with `client_secret_basic`: one request per operation.
    case clientCredentials = "client_credentials"

    /// Whether virtual users must sign in through the login pages first.
    var needsSession: Bool { self != .clientCredentials }

    /// Runs one operation of this scenario for `user`.
    func run(_ user: VirtualUser, into latencies: inout VirtualUser.Latencies) async throws {
        switch self {
        case .cycle: try await user.cycle(into: &latencies)
        case .refresh: try await user.refresh(into: &latencies)
        case .clientCredentials: try await user.clientCredentials(into: &latencies)
        }
    }
}
