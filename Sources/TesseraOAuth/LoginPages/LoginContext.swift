import FoundationEssentials
import Logging
import MultiFactor
import PhoneSignIn
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraPostgres

/// What every handler of the authorization endpoint and the login pages works with.
///
/// A class, not a struct: every handler and every closure that runs on a pool holds it, and a copy of a reference
/// is one retain where a copy of a dozen fields was a dozen.
final class LoginContext: Sendable {
    let services: CoreServices
    let router: MultiFactorRouter
    /// `iss` of the redirects (RFC 9207).
    let issuer: String
    let cookies: LoginCookies
    /// The clients by id (nil: none), kept fresh by change notices, so that an authorization request with a
    /// browser session reads only the session.
    let clients: FleetCache<OAuthClient?>
    /// What ended browser sessions early, so that an SSO authorization trusts a sealed session cookie.
    let revocations: SSORevocations
    /// Proxies whose forwarding headers are believed, for the client address the SMS limits count.
    let trustedProxies: [IPNetwork]
    let logger: Logger
    /// The proof of work asked before a code goes to an address the user typed.
    let proofOfWork: LoginProofOfWork
    /// Phone sign-in, which the pages offer where the tenant enables it; nil: never offered.
    let phoneSignIn: PhoneSignIn?

    init(
        services: CoreServices, router: MultiFactorRouter, issuer: String, cookies: LoginCookies,
        clients: FleetCache<OAuthClient?>, revocations: SSORevocations, trustedProxies: [IPNetwork], logger: Logger,
        proofOfWork: LoginProofOfWork = .standard, phoneSignIn: PhoneSignIn? = nil
    ) {
        self.services = services
        self.router = router
        self.issuer = issuer
        self.cookies = cookies
        self.clients = clients
        self.revocations = revocations
        self.trustedProxies = trustedProxies
        self.logger = logger
        self.proofOfWork = proofOfWork
        self.phoneSignIn = phoneSignIn
    }

    /// The time now, by the services' clock.
    var now: Date { services.clock.now() }
    var keyRing: KeyRing { services.keyRing }
    /// The password first factor, which hands a passed sign-in to ``router``.
    var firstFactor: FirstFactorSignIn { FirstFactorSignIn(router: router) }

    /// Runs `body` with the pool of the calling loop; a failure that is not handled there is logged (without
    /// secrets) and shown as the "try again later" page.
    func withPool(
        _ body: @escaping @Sendable (PostgresPool) async throws -> HTTPResponse
    ) async -> HTTPResponse {
        do {
            return try await services.database.withPool(body)
        } catch {
            logger.error("login page failed", metadata: ["error": .string(String(describing: error))])
            return ErrorPage.unavailable
        }
    }

    /// Codes the pages may send for one browser an hour (over all its flows), beyond the limits per number and per
    /// client address: the pages vouch for app verification themselves.
    static let pageCodesPerBrowser = RateLimit(
        name: "page_codes_browser", limit: 10, window: 3600,
        refusal: "Too many codes were sent from this browser; try again later.")

    /// Counts a code the pages are about to send for the browser of `flow`; `TOO_MANY_ATTEMPTS_TRY_LATER` with
    /// `retryAfter` beyond ``pageCodesPerBrowser``.
    func countPageCode(_ pool: PostgresPool, _ flow: LoginFlow) async throws {
        let key = flow.browserHash.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        try await Self.pageCodesPerBrowser.admit(pool, key: key, now: now)
    }

    /// The language of a page answered to `request`: the one chosen at `/oauth2/authorize` (its cookie), else the
    /// best of its `Accept-Language`, else English.
    func language(of request: HTTPRequest, uiLocales: String? = nil) -> Language {
        if uiLocales == nil, let chosen = request.cookie(named: cookies.languageName).flatMap(Language.init(rawValue:))
        {
            return chosen
        }
        return Language.negotiate(
            uiLocales: uiLocales, acceptLanguage: request.headers["Accept-Language"], fallback: nil)
    }

    /// The client's address as text, after trusted proxies.
    func clientAddress(_ request: HTTPRequest) -> String? {
        ClientAddress.resolve(peer: request.remoteAddress, headers: request.headers, trustedProxies: trustedProxies)?
            .description
    }

    /// The flow a page names (`flowID`), when it belongs to this browser; otherwise the page to answer with: 403
    /// for a foreign browser, 400 for an unknown, expired or completed flow.
    func openPage(_ pool: PostgresPool, _ request: HTTPRequest, flowID: String?) async throws -> FlowAccess {
        try await open(pool, request, flowID: flowID, checksCSRF: false, csrf: nil)
    }

    /// The flow a form posts back (`flow`), when it belongs to this browser and the form's `csrf` is the flow's
    /// token for it; otherwise 403 for a missing or wrong token or a foreign browser, 400 as for pages.
    func openForm(_ pool: PostgresPool, _ request: HTTPRequest, form: URLEncodedForm) async throws -> FlowAccess {
        try await open(pool, request, flowID: form["flow"], checksCSRF: true, csrf: form["csrf"])
    }

    private func open(
        _ pool: PostgresPool, _ request: HTTPRequest, flowID: String?, checksCSRF: Bool, csrf: String?
    ) async throws -> FlowAccess {
        guard let flowID, !flowID.isEmpty else {
            return .refused(ErrorPage.flowEnded("This sign-in link is incomplete. Return to the app and start again."))
        }
        guard let browserSecret = request.cookie(named: cookies.browserName), !browserSecret.isEmpty else {
            return .refused(ErrorPage.forbidden)
        }
        let hash = try SecretDigest.of(flowID)
        guard let flow = try await LoginFlows.find(pool, keyRing: keyRing, hash: hash) else {
            return .refused(
                ErrorPage.flowEnded("This sign-in is not known or has ended. Return to the app and start again."))
        }
        guard ConstantTime.equals(try SecretDigest.of(browserSecret), flow.browserHash) else {
            return .refused(ErrorPage.forbidden)
        }
        if checksCSRF, !CSRFToken.isValid(csrf, browserSecret: browserSecret, flowID: flowID) {
            return .refused(ErrorPage.forbidden)
        }
        guard flow.completedAt == nil else {
            return .refused(ErrorPage.flowEnded("This sign-in is already complete. Return to the app."))
        }
        guard flow.expiresAt > now else {
            return .refused(ErrorPage.flowEnded("This sign-in has expired. Return to the app and start again."))
        }
        var forms = LoginForms(flowID: flowID, csrf: try CSRFToken.make(browserSecret: browserSecret, flowID: flowID))
        forms.proofOfWork = proofOfWork
        return .opened(OpenedFlow(flow: flow, flowID: flowID, forms: forms))
    }

    /// The factors the pages offer and drive: the router's registry. Every page and form reads them here, so that
    /// factors the router learns at run time reach the pages through this one place.
    func factors() async throws -> FactorRegistry {
        try await router.factors()
    }

    /// The factor `id` when the login pages can drive it; nil for an unknown id, a factor that is no longer
    /// offered, or one that declares no login pages.
    func pageFactor(_ id: String?) async throws -> PageFactor? {
        PageFactor(id, in: try await factors())
    }

    /// The page that shows a flow's next step.
    func nextPage(_ opened: OpenedFlow) -> HTTPResponse {
        LoginResponse.redirect(to: "/oauth2/login?flow=" + PercentEncoding.encode(opened.flowID), status: .seeOther)
    }
}
