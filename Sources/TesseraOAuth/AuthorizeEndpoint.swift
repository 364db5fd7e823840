import FoundationEssentials
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraPostgres

/// `GET /oauth2/authorize` (API §6; RFC 6749 §4.1.1, RFC 7636, RFC 9207, RFC 8252 §7.3).
///
/// An unknown client or a redirect URI that matches none of its own ends on an HTML error page (400), never in a
/// redirect. Every other fault is redirected to the client with `error`, `error_description`, `state` and `iss`.
/// A valid request is answered with a code at once when the browser has a live session of the client's tenant
/// that needs no further factor (SSO); otherwise a login flow is stored and the browser is sent to the login page.
struct AuthorizeEndpoint: Sendable {
    let context: LoginContext

    /// Answers one authorization request.
    func respond(_ request: HTTPRequest) async -> HTTPResponse {
        guard let query = try? request.queryItems() else {
            return Self.badRequest("The authorization request is not a well-formed query.")
        }
        let target: (clientID: String, redirectURI: String)
        switch AuthorizationRequestParser.target(query) {
        case .success(let found): target = found
        case .failure(let problem): return Self.badRequest(problem.description)
        }
        return await context.withPool { pool in
            guard let client = try await OAuthClients.find(pool, clientID: target.clientID) else {
                return Self.badRequest("The application (client_id) is not registered.")
            }
            guard client.redirectURI(matching: target.redirectURI) != nil else {
                return Self.badRequest("The redirect_uri is not registered for this application.")
            }
            let redirect = { (error: AuthorizationError) in
                LoginResponse.redirect(
                    to: OAuthRedirect.error(
                        error, redirectURI: target.redirectURI, state: Self.state(of: query),
                        issuer: context.issuer))
            }
            let authorization: AuthorizationRequest
            switch AuthorizationRequestParser.parse(query, client: client, redirectURI: target.redirectURI) {
            case .success(let parsed): authorization = parsed
            case .failure(let error): return redirect(error)
            }
            let config = try await context.services.configs.effective(pool, tenantID: client.tenantID)
            guard !config.disabled else {
                return redirect(AuthorizationError("access_denied", "Sign-in is disabled for this tenant."))
            }
            return try await proceed(pool, request, authorization, config: config, redirect: redirect)
        }
    }

    /// SSO when the browser's session allows it; else the login pages (or `login_required` for `prompt=none`).
    private func proceed(
        _ pool: PostgresPool, _ request: HTTPRequest, _ authorization: AuthorizationRequest, config: EffectiveConfig,
        redirect: (AuthorizationError) -> HTTPResponse
    ) async throws -> HTTPResponse {
        let loginRequired = AuthorizationError("login_required", "The user must sign in.")
        var upgrading: (hash: [UInt8], outcome: SignInOutcome)?
        if !authorization.prompt.contains("login"), let (hash, family) = try await session(pool, request),
            family.tenantID == authorization.tenantID
        {
            let satisfied =
                if family.secondFactor != nil { true } else {
                    !(try await context.router.requiresSecondFactor(pool, userID: family.userID, config: config))
                }
            if satisfied {
                return try await LoginCompletion(context: context).issue(pool, authorization, family: family)
            }
            if authorization.prompt.contains("none") { return redirect(loginRequired) }
            if let user = try await UserStore.find(pool, id: family.userID, tenantID: family.tenantID) {
                let outcome = try await context.router.completeFirstFactor(
                    pool, user: user, provider: family.provider, config: config)
                upgrading = (hash, outcome)
            }
        }
        if authorization.prompt.contains("none") { return redirect(loginRequired) }
        let existing = request.cookie(named: context.cookies.browserName).flatMap { $0.isEmpty ? nil : $0 }
        let browserSecret = try existing ?? SecureRandom.token()
        let flowID = try SecretDigest.make()
        var flow = LoginFlow(
            hash: flowID.digest, browserHash: try SecretDigest.of(browserSecret), request: authorization,
            now: context.now)
        flow.browserSessionHash = upgrading?.hash
        try await LoginFlows.insert(pool, keyRing: context.keyRing, flow, now: context.now)
        let opened = OpenedFlow(
            flow: flow, flowID: flowID.secret,
            forms: LoginForms(
                flowID: flowID.secret, csrf: try CSRFToken.make(browserSecret: browserSecret, flowID: flowID.secret)))
        var response =
            if let upgrading {
                try await LoginCompletion(context: context).advance(pool, opened, outcome: upgrading.outcome)
            } else {
                context.nextPage(opened)
            }
        if existing == nil { try response.setCookie(context.cookies.browser(browserSecret)) }
        return response
    }

    /// The live browser session of the request's session cookie, with the hash of its secret.
    private func session(
        _ pool: PostgresPool, _ request: HTTPRequest
    ) async throws -> ([UInt8], SignInFamily)? {
        guard let secret = request.cookie(named: context.cookies.sessionName), !secret.isEmpty else { return nil }
        let hash = try SecretDigest.of(secret)
        return try await BrowserSessions.find(pool, hash: hash, now: context.now).map { (hash, $0) }
    }

    /// The request's `state` when it was sent once (a repeated `state` is not echoed).
    private static func state(of query: URLEncodedForm) -> String? {
        let values = query.values(of: "state")
        return values.count == 1 ? values.first : nil
    }

    private static func badRequest(_ detail: String) -> HTTPResponse {
        ErrorPage.response(
            .badRequest, title: "Sign-in request not valid",
            message: detail + " The application that sent you here is misconfigured; no sign-in can take place.")
    }
}
