import FoundationEssentials
import Logging
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraPostgres

/// OpenID Connect RP-Initiated Logout 1.0 (docs/login-pages.md#sign-out): the `end_session_endpoint`,
/// `GET` or `POST /oauth2/logout` with `id_token_hint`, `client_id`, `post_logout_redirect_uri`, `state` (and
/// `ui_locales`, read by nothing yet).
///
/// - With a valid `id_token_hint` (one of this issuer's ID tokens, expired or not, of the browser's signed-in
///   user when the browser has a session), it signs out at once: the grant the token was issued from (`sid`) is
///   revoked, and the browser's session ends (its sign-in revoked, the row and the cookie deleted).
/// - Without one, it asks first: a page with a form posted to `POST /oauth2/logout/confirm` (CSRF bound to the
///   browser cookie), which ends the browser's session.
/// - Afterwards it redirects to `post_logout_redirect_uri` (with `state`) when the client named by `client_id` or
///   by the hint's audience registered it; otherwise it shows a "signed out" page. A URI that is not registered,
///   an unknown client, a `client_id` that is not the hint's audience, or a hint that is not ours gets a 400 page
///   and signs nobody out: the endpoint never redirects anywhere a client did not register.
struct LogoutEndpoint: Sendable {
    let context: LoginContext

    /// The request's parameters, checked: the client and the redirect it allows, the hint's claims.
    struct Request: Sendable {
        var client: OAuthClient?
        var redirectURI: String?
        var state: String?
        var hint: OpenIDTokenClaims?
    }

    /// `GET` or `POST /oauth2/logout`.
    func respond(_ http: HTTPRequest) async -> HTTPResponse {
        let parameters: URLEncodedForm
        do {
            parameters = http.method == .post ? try http.formItems() : try http.queryItems()
        } catch {
            return ErrorPage.response(.badRequest, title: "Sign-out failed", message: "The request could not be read.")
        }
        let context = context
        return await context.withPool { pool in
            let request: Request
            switch try await self.check(pool, parameters) {
            case .success(let checked): request = checked
            case .failure(let refusal): return refusal.response
            }
            let sessionHash = try http.cookie(named: context.cookies.sessionName).map {
                try SessionCookie.hash(ofCookie: $0, keys: context.services.sessionKeys)
            }
            var sessionUser: String?
            if let sessionHash { sessionUser = try await self.sessionUser(pool, hash: sessionHash) }
            if let hint = request.hint, sessionUser == nil || sessionUser == hint.sub {
                if let sid = hint.sid {
                    try await TokenFamilies.revoke(pool, familyID: sid, userID: hint.sub, now: context.now)
                }
                if let sessionHash { try await self.endSession(pool, hash: sessionHash) }
                return try self.finish(request, clearing: sessionHash != nil)
            }
            guard sessionUser != nil, let browserSecret = http.cookie(named: context.cookies.browserName),
                !browserSecret.isEmpty
            else { return try self.finish(request, clearing: sessionHash != nil) }
            return LoginResponse.html(
                Self.confirmation(request, csrf: try CSRFToken.make(browserSecret: browserSecret, flowID: "logout")),
                redirectURI: request.redirectURI)
        }
    }

    /// `POST /oauth2/logout/confirm`: the confirmation page's form.
    func confirm(_ http: HTTPRequest) async -> HTTPResponse {
        guard let form = try? http.formItems() else {
            return ErrorPage.response(.badRequest, title: "Sign-out failed", message: "The form could not be read.")
        }
        guard let browserSecret = http.cookie(named: context.cookies.browserName), !browserSecret.isEmpty,
            CSRFToken.isValid(form["csrf"], browserSecret: browserSecret, flowID: "logout")
        else { return ErrorPage.forbidden }
        let context = context
        return await context.withPool { pool in
            let request: Request
            switch try await self.check(pool, form, readsHint: false) {
            case .success(let checked): request = checked
            case .failure(let refusal): return refusal.response
            }
            let sessionHash = try http.cookie(named: context.cookies.sessionName).map {
                try SessionCookie.hash(ofCookie: $0, keys: context.services.sessionKeys)
            }
            if let sessionHash { try await self.endSession(pool, hash: sessionHash) }
            return try self.finish(request, clearing: sessionHash != nil)
        }
    }

    /// The parameters checked against the client's registration (`id_token_hint` only when `readsHint`); a 400
    /// page for anything wrong.
    private func check(
        _ pool: PostgresPool, _ parameters: URLEncodedForm, readsHint: Bool = true
    ) async throws
        -> Result<Request, RefusedLogout>
    {
        let refuse = { (message: LocalizedText) -> Result<Request, RefusedLogout> in
            .failure(RefusedLogout(ErrorPage.response(.badRequest, title: "Sign-out failed", message: message)))
        }
        var request = Request(state: parameters["state"])
        if readsHint, let hint = parameters["id_token_hint"], !hint.isEmpty {
            guard let claims = try await verifiedHint(hint) else {
                return refuse("The application sent an ID token this service did not issue.")
            }
            request.hint = claims
        }
        var clientID = parameters["client_id"].flatMap { $0.isEmpty ? nil : $0 }
        if let hint = request.hint {
            if let clientID, clientID != hint.aud {
                return refuse("The application named another client than the one its ID token was issued to.")
            }
            clientID = hint.aud
        }
        if let clientID {
            guard let client = try await OAuthClients.find(pool, clientID: clientID) else {
                return refuse("The application is not registered here.")
            }
            request.client = client
        }
        if let uri = parameters["post_logout_redirect_uri"], !uri.isEmpty {
            guard let client = request.client else {
                return refuse("The application must say who it is (client_id or id_token_hint) to be sent back.")
            }
            guard client.postLogoutRedirectURI(matching: uri) != nil else {
                return refuse("The application asked to be sent back to an address it did not register.")
            }
            request.redirectURI = uri
        }
        return .success(request)
    }

    /// The claims of `token` when it is one of this issuer's ID tokens, signed by a published key; its lifetime is
    /// not checked (a hint is often an expired token): the time checks run at the token's own `iat`, read before
    /// the signature is checked, which a forged `iat` then fails.
    private func verifiedHint(_ token: String) async throws -> OpenIDTokenClaims? {
        struct IssuedAt: Decodable { let iat: Int64 }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = try? Base64URL.decode(String(segments[1])),
            let issuedAt = try? JSONDecoder().decode(IssuedAt.self, from: Data(payload))
        else { return nil }
        let keys = try await context.services.signingKeys.keys(verifying: token)
        let verifier = JWTVerifier(keys: keys, expectedType: .jwt)
        guard let claims = try? verifier.verify(token, as: OpenIDTokenClaims.self, now: issuedAt.iat).claims,
            claims.iss == context.issuer
        else { return nil }
        return claims
    }

    /// The user of the live browser session whose cookie hashes to `hash`, or nil.
    private func sessionUser(_ pool: PostgresPool, hash: [UInt8]) async throws -> String? {
        let found = try await pool.pipeline([BrowserSessions.find(hash: hash, now: context.now)])
        return try found[0].rows.first.map { try BrowserSessions.family(row: $0).userID }
    }

    /// Ends the browser session whose cookie hashes to `hash`: deletes it and revokes its sign-in.
    private func endSession(_ pool: PostgresPool, hash: [UInt8]) async throws {
        let now = context.now
        try await pool.transaction { transaction in try await BrowserSessions.end(transaction, hash: hash, now: now) }
        context.revocations.ended(hash: hash, now: now)
    }

    /// The redirect to the registered URI with `state`, or the signed-out page; the session cookie deleted when
    /// the browser had one.
    private func finish(_ request: Request, clearing: Bool) throws -> HTTPResponse {
        var response: HTTPResponse
        if let uri = request.redirectURI {
            var location = uri
            if let state = request.state {
                location += (uri.contains("?") ? "&" : "?") + "state=" + PercentEncoding.encode(state)
            }
            response = LoginResponse.redirect(to: location, status: .seeOther)
        } else {
            response = LoginResponse.html(
                LoginPageLayout.document(
                    title: "Signed out",
                    content: LoginPageLayout.paragraph("You are signed out. You can close this page.", id: "signed-out")
                ))
        }
        if clearing { try response.setCookie(SetCookie.deletion(name: context.cookies.sessionName)) }
        return response
    }

    /// The page that asks before signing out.
    static func confirmation(_ request: Request, csrf: String) -> String {
        var hidden = #"<input type="hidden" name="csrf" value="\#(HTML.escape(csrf))">"#
        let fields = [
            ("client_id", request.client?.clientID), ("post_logout_redirect_uri", request.redirectURI),
            ("state", request.state),
        ]
        for case (let name, let value?) in fields {
            hidden += #"<input type="hidden" name="\#(name)" value="\#(HTML.escape(value))">"#
        }
        let asker = request.client?.clientName ?? Texts.current("An application")
        return LoginPageLayout.document(
            title: "Sign out?",
            content: LoginPageLayout.paragraph(
                LocalizedText("{client} asks to sign you out of this browser.", ["client": asker]), id: "instructions")
                + #"<form id="logout-form" method="post" action="/oauth2/logout/confirm">"# + hidden
                + #"<button id="sign-out" name="sign-out" type="submit">"# + HTML.escape(Texts.current("Sign out"))
                + "</button></form>")
    }
}

/// The page a refused logout request gets.
struct RefusedLogout: Error {
    let response: HTTPResponse

    init(_ response: HTTPResponse) { self.response = response }
}
