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

    /// Answers one authorization request, whose query is `query` (nil: malformed).
    func respond(_ request: HTTPRequest, query: URLEncodedForm?) async -> HTTPResponse {
        guard let query else {
            return Self.badRequest("The authorization request is not a well-formed query.")
        }
        let target: (clientID: String, redirectURI: String)
        switch AuthorizationRequestParser.target(query) {
        case .success(let found): target = found
        case .failure(let problem): return Self.badRequest(problem.description)
        }
        return await context.withPool { pool in
            let now = context.now
            let cookie = try SessionCookieRead(request, context: context, now: now)
            let found = try await cookie.applying {
                try await clientAndConfig(pool, clientID: target.clientID, alongside: cookie.query)
            }
            guard let (client, config) = found.client else {
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
            guard !config.disabled else {
                return redirect(AuthorizationError("access_denied", "Sign-in is disabled for this tenant."))
            }
            let session = try await self.session(pool, cookie, alongside: found.alongside, now: now)
            // The pages of the flow speak the language chosen here, kept in a cookie.
            let language = Language.negotiate(
                uiLocales: query["ui_locales"], acceptLanguage: request.headers["Accept-Language"],
                fallback: config.defaultLanguage)
            var response = try await Texts.$current.withValue(Texts(language)) {
                try await proceed(pool, request, authorization, session: session, config: config, redirect: redirect)
            }
            // A session cookie: set when the choice differs from what the browser sent, not on every authorization.
            if request.cookie(named: context.cookies.languageName) != language.rawValue {
                try response.setCookie(context.cookies.language(language))
            }
            return response
        }
    }

    /// What the request's session cookie needs from the client's round trip: for a sealed cookie that may sign in,
    /// the revocation list's read when it is due; for a cookie of the bare secret, the session's row.
    private struct SessionCookieRead {
        /// The cookie's value; nil when the request has none (or an empty one).
        let value: String?
        /// The cookie opened; nil when it has none or it does not open (the bare secret, or junk).
        let sealed: SessionCookie?
        let listRead: SSORevocationList.Read?
        let revocations: SSORevocations
        /// The statement to send with the client's (nil: none).
        let query: PostgresQuery?

        init(_ request: HTTPRequest, context: LoginContext, now: Date) throws {
            value = request.cookie(named: context.cookies.sessionName).flatMap { $0.isEmpty ? nil : $0 }
            sealed = value.flatMap { SessionCookie.open($0, keys: context.services.sessionKeys) }
            revocations = context.revocations
            if let sealed {
                listRead = AuthorizeEndpoint.signsIn(sealed, now: now) ? revocations.dueRead(now: now) : nil
                query = listRead?.query
            } else {
                listRead = nil
                query = try value.map { BrowserSessions.find(hash: try SecretDigest.of($0), now: now) }
            }
        }

        /// Runs the round trip `read`, whose second result is ``query``'s, and hands the list its rows (or gives up
        /// its read when they did not come).
        func applying<Client>(
            _ read: () async throws -> (client: Client, alongside: PostgresResult?)
        ) async throws -> (client: Client, alongside: PostgresResult?) {
            guard let listRead else { return try await read() }
            do {
                let found = try await read()
                if let rows = found.alongside {
                    try revocations.apply(rows, of: listRead, now: listRead.wallTime)
                } else {
                    revocations.failed(listRead)
                }
                return found
            } catch {
                revocations.failed(listRead)
                throw error
            }
        }
    }

    /// The browser's session, if live: for a sealed cookie, as the cookie says when the revocation list vouches for
    /// it, else as its row says (one more round trip, rare: the list is being re-read, or overflowed); for a cookie
    /// of the bare secret, as its row (`alongside`) says.
    private func session(
        _ pool: PostgresPool, _ cookie: SessionCookieRead, alongside: PostgresResult?, now: Date
    ) async throws -> (hash: [UInt8], family: SignInFamily)? {
        guard let value = cookie.value else { return nil }
        guard let sealed = cookie.sealed else {
            return try alongside?.rows.first.map { (try SecretDigest.of(value), try BrowserSessions.family(row: $0)) }
        }
        guard Self.signsIn(sealed, now: now) else { return nil }
        let hash = try sealed.hash()
        switch context.revocations.verdict(sealed, hash: hash) {
        case .live: return (hash, sealed.family)
        case .revoked: return nil
        case .unknown:
            let found = try await pool.pipeline([BrowserSessions.find(hash: hash, now: now)])
            return try found[0].rows.first.map { (hash, try BrowserSessions.family(row: $0)) }
        }
    }

    /// Whether a sealed session may sign its user in by SSO at `now`, as far as the cookie tells: unexpired, and its
    /// sign-in owes no enrolment.
    fileprivate static func signsIn(_ sealed: SessionCookie, now: Date) -> Bool {
        sealed.expiresAt > now && !sealed.enrollmentRequired
    }

    /// The client `clientID` (nil when there is none) with its tenant's configuration, and the result of `query`
    /// (the revocation list's or the browser session's read) in the same round trip: from this server's caches when
    /// both are fresh there (then `query` alone is sent, if any), else read with `query` in one pipeline and kept in
    /// the caches.
    private func clientAndConfig(
        _ pool: PostgresPool, clientID: String, alongside query: PostgresQuery?
    ) async throws -> (client: (OAuthClient, EffectiveConfig)?, alongside: PostgresResult?) {
        let configs = context.services.configs
        let readAt = ContinuousClock.now
        let (cachedClient, clientEpoch) = context.clients.cached(clientID)
        let (cachedConfig, configEpoch) = configs.cached(tenantID: cachedClient??.tenantID)
        if let cachedClient {
            guard let client = cachedClient else { return (nil, nil) }
            if let cachedConfig {
                guard let query else { return ((client, cachedConfig), nil) }
                return ((client, cachedConfig), try await pool.pipeline([query])[0])
            }
        }
        let queries = [OAuthClients.findWithConfigTexts(clientID: clientID)] + (query.map { [$0] } ?? [])
        let results = try await pool.pipeline(queries)
        let alongside = results.count > 1 ? results[1] : nil
        let row = results[0].rows.first
        let client = try row.map(OAuthClients.client(row:))
        context.clients.store(client, for: clientID, loadedAt: readAt, epoch: clientEpoch)
        guard let row, let client else { return (nil, alongside) }
        let config = try configs.effective(
            StoredTexts(row: row, at: OAuthClients.columnCount, tenantID: client.tenantID), readAt: readAt,
            epoch: configEpoch)
        return ((client, config), alongside)
    }

    /// SSO when the browser's session allows it; else the login pages (or `login_required` for `prompt=none`).
    private func proceed(
        _ pool: PostgresPool, _ request: HTTPRequest, _ authorization: AuthorizationRequest,
        session: (hash: [UInt8], family: SignInFamily)?, config: EffectiveConfig,
        redirect: (AuthorizationError) -> HTTPResponse
    ) async throws -> HTTPResponse {
        var upgrading: Upgrade?
        if let live = Self.usable(session, for: authorization) {
            if try await needsNoFurtherFactor(pool, live.family, config: config) {
                return try await LoginCompletion(context: context).issue(pool, authorization, family: live.family)
            }
            if !authorization.prompt.contains("none") {
                upgrading = try await upgrade(pool, live, config: config)
            }
        }
        if authorization.prompt.contains("none") {
            return redirect(AuthorizationError("login_required", "The user must sign in."))
        }
        return try await startFlow(pool, request, authorization, upgrading: upgrading)
    }

    /// A browser session that passed its first factor, and the sign-in the flow continues from it.
    private struct Upgrade {
        let hash: [UInt8]
        let outcome: SignInOutcome
    }

    /// The browser's live session when this request may use it: not `prompt=login`, and of the client's tenant.
    private static func usable(
        _ session: (hash: [UInt8], family: SignInFamily)?, for authorization: AuthorizationRequest
    ) -> (hash: [UInt8], family: SignInFamily)? {
        guard !authorization.prompt.contains("login"), let session, session.family.tenantID == authorization.tenantID
        else { return nil }
        return session
    }

    /// Whether the session's sign-in is enough: it passed a second factor, or its user needs none.
    private func needsNoFurtherFactor(
        _ pool: PostgresPool, _ family: SignInFamily, config: EffectiveConfig
    ) async throws -> Bool {
        guard family.secondFactor == nil else { return true }
        let required = try await context.router.requiresSecondFactor(pool, userID: family.userID, config: config)
        return !required
    }

    /// The second-factor challenge (or enrolment) for the session's user, who passed the first factor already.
    private func upgrade(
        _ pool: PostgresPool, _ live: (hash: [UInt8], family: SignInFamily), config: EffectiveConfig
    ) async throws -> Upgrade? {
        // The step-up replaces the session's row: it must still be there (a sealed cookie was not read).
        let found = try await pool.pipeline([BrowserSessions.find(hash: live.hash, now: context.now)])
        guard found[0].rows.first != nil,
            let user = try await UserStore.find(pool, id: live.family.userID, tenantID: live.family.tenantID)
        else { return nil }
        let outcome = try await context.router.completeFirstFactor(
            pool, user: user, provider: live.family.provider, config: config, authTime: live.family.authTime)
        return Upgrade(hash: live.hash, outcome: outcome)
    }

    /// Stores a login flow for this browser and answers its first page (or the upgrade's next step).
    private func startFlow(
        _ pool: PostgresPool, _ request: HTTPRequest, _ authorization: AuthorizationRequest, upgrading: Upgrade?
    ) async throws -> HTTPResponse {
        let existing = request.cookie(named: context.cookies.browserName).flatMap { $0.isEmpty ? nil : $0 }
        let browserSecret = try existing ?? SecureRandom.token()
        let flowID = try SecretDigest.make()
        var flow = LoginFlow(
            hash: flowID.digest, browserHash: try SecretDigest.of(browserSecret), request: authorization,
            now: context.now)
        flow.browserSessionHash = upgrading?.hash
        // An anonymous GET stores a flow (up to a few KB, for 10 minutes): bounded per client address, so that no
        // one can fill the table by requesting authorize pages.
        if let client = context.clientAddress(request) {
            do {
                try await Self.flowsPerClient.admit(pool, key: client, now: context.now)
            } catch let error as AuthError {
                return ErrorPage.response(
                    HTTPStatus(code: 429), title: "Too many sign-ins",
                    message: LocalizedText(
                        "Too many sign-ins were started from your network. Try again in {wait}.",
                        wait: error.retryAfter ?? 60))
            }
        }
        try await LoginFlows.insert(pool, keyRing: context.keyRing, flow, now: context.now)
        var forms = LoginForms(
            flowID: flowID.secret, csrf: try CSRFToken.make(browserSecret: browserSecret, flowID: flowID.secret))
        forms.proofOfWork = context.proofOfWork
        let opened = OpenedFlow(flow: flow, flowID: flowID.secret, forms: forms)
        var response: HTTPResponse
        if let upgrading {
            response = try await LoginCompletion(context: context).advance(pool, opened, outcome: upgrading.outcome)
        } else {
            response = context.nextPage(opened)
        }
        if existing == nil { try response.setCookie(context.cookies.browser(browserSecret)) }
        return response
    }

    /// Login flows one client address may start a minute (each is stored until it expires, 10 minutes later).
    static let flowsPerClient = RateLimit(
        name: "login_flows_client", limit: 300, window: 60, refusal: "Too many sign-ins were started.")

    /// The request's `state` when it was sent once (a repeated `state` is not echoed).
    private static func state(of query: URLEncodedForm) -> String? {
        let values = query.values(of: "state")
        return values.count == 1 ? values.first : nil
    }

    /// The page of a request no sign-in can follow; `detail` (for the app's developers) stays in English.
    private static func badRequest(_ detail: String) -> HTTPResponse {
        ErrorPage.response(
            .badRequest, title: "Sign-in request not valid",
            message: LocalizedText(
                "{detail} The application that sent you here is misconfigured; no sign-in can take place.",
                ["detail": detail]))
    }
}
