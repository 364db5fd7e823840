import TesseraCore
public import TesseraHTTP
import TesseraPostgres

/// `POST /oauth2/token` (API §6; RFC 6749 §3.2, §4.1.3, §4.4, §5, §6; RFC 7636 §4.6): the `authorization_code`,
/// `refresh_token` and `client_credentials` grants. Every answer is JSON with `Cache-Control: no-store`; errors
/// are RFC 6749 §5.2 objects (see ``OAuthError``).
public struct TokenEndpoint: Sendable {
    let environment: OAuthEnvironment

    /// The endpoint over `environment`.
    public init(environment: OAuthEnvironment) {
        self.environment = environment
    }

    /// Answers one token request.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        do {
            return try await answer(request)
        } catch {
            return environment.failure(error, endpoint: "token endpoint").response
        }
    }

    private func answer(_ request: HTTPRequest) async throws -> HTTPResponse {
        let form = try OAuthForm(request)
        let grantType = try form.required("grant_type")
        guard let grant = OAuthGrantType(rawValue: grantType) else {
            throw OAuthError(.unsupportedGrantType, "grant_type \(grantType.prefix(64)) is not supported")
        }
        let credentials = try ClientCredentials(request, form: form)
        switch grant {
        case .authorizationCode: return try await redeemCode(form, credentials: credentials)
        case .refreshToken: return try await refresh(form, credentials: credentials)
        case .clientCredentials: return try await clientCredentialsGrant(form, credentials: credentials)
        }
    }

    /// Reads the client `credentials` name in one pipeline before `query` (a statement that checks the client again
    /// itself, so that a client that fails spends nothing), then authenticates it and requires `grant` of it: a
    /// grant's one round trip and one transaction for a client the server has not cached. (A cached client is
    /// authenticated against its cached row, and its grant's statement need not read it again: a change of a client
    /// reaches every server's cache within ``OAuthEnvironment``'s bound.)
    func authenticatingRead(
        _ grant: OAuthGrantType, credentials: ClientCredentials, then query: PostgresQuery
    ) async throws -> (client: OAuthClient, result: PostgresResult) {
        let (found, result) = try await environment.readingClient(credentials.clientID, then: query)
        let client = try credentials.authenticate(found)
        try require(grant, by: client)
        return (client, result)
    }

    /// Returns when `client` may use `grant`; throws `unauthorized_client` otherwise.
    func require(_ grant: OAuthGrantType, by client: OAuthClient) throws(OAuthError) {
        guard client.allows(grant) else {
            throw OAuthError(.unauthorizedClient, "this client may not use the \(grant.rawValue) grant")
        }
    }
}
