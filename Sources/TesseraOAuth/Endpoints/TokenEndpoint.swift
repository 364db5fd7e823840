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

    /// A grant's one statement, in one round trip and one transaction, and the client `credentials` name,
    /// authenticated and allowed `grant`; returns the client and the statement's row (nil: it wrote nothing). A client
    /// the server has cached (`cached`, as ``OAuthEnvironment/cachedClient(_:)`` gave it; nil: not cached) is
    /// authenticated against its cached row first, and the grant goes to `writers` under `key` with the parameters
    /// `trusted` makes for the client, which the statement does not read again (a change of a client reaches every
    /// server's cache within ``OAuthEnvironment``'s bound). Otherwise the client's row is read in one pipeline before
    /// `checking`, a statement that checks the client again itself, so that a client that fails spends nothing, and
    /// the client is authenticated after.
    func grantRow(
        _ grant: OAuthGrantType, credentials: ClientCredentials, cached: OAuthClient??, writers: GrantWriters,
        key: [UInt8], trusted: (OAuthClient) -> [any PostgresEncodable], checking: () throws -> PostgresQuery
    ) async throws -> (client: OAuthClient, row: PostgresRow?) {
        if let cached {
            let client = try credentials.authenticate(cached)
            try require(grant, by: client)
            return (client, try await writers.write(key: key, parameters: trusted(client)))
        }
        let (found, result) = try await environment.readingClient(credentials.clientID, then: try checking())
        let client = try credentials.authenticate(found)
        try require(grant, by: client)
        return (client, result.rows.first)
    }

    /// Returns when `client` may use `grant`; throws `unauthorized_client` otherwise.
    func require(_ grant: OAuthGrantType, by client: OAuthClient) throws(OAuthError) {
        guard client.allows(grant) else {
            throw OAuthError(.unauthorizedClient, "this client may not use the \(grant.rawValue) grant")
        }
    }
}
