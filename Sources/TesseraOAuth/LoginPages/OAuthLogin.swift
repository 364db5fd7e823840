public import Logging
public import MultiFactor
public import PhoneSignIn
public import TesseraCore
public import TesseraHTTP

/// The authorization endpoint and the login pages (API §6, docs/login-pages.md) as handlers from ``HTTPRequest``
/// to ``HTTPResponse``, testable without sockets. The server mounts them at ``routes``.
///
/// Every response carries a strict CSP, `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`,
/// `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`. Every form must come back with the `flow` and
/// `csrf` inputs of its page from the browser the flow started in; otherwise it gets a 403 page and changes
/// nothing.
public struct OAuthLogin: Sendable {
    /// The method and path of each handler.
    public enum Route: String, Sendable, CaseIterable {
        /// `GET /oauth2/authorize`.
        case authorize = "/oauth2/authorize"
        /// `GET /oauth2/login`: the page of the flow's step.
        case page = "/oauth2/login"
        /// `POST /oauth2/login/password`: `email`, `password`.
        case password = "/oauth2/login/password"
        /// `POST /oauth2/login/factor`: `mfaEnrollmentId`, or `chooseAnother`.
        case factor = "/oauth2/login/factor"
        /// `POST /oauth2/login/code`: `code`.
        case code = "/oauth2/login/code"
        /// `POST /oauth2/login/resend`: another code (SMS), for factors that declare it.
        case resend = "/oauth2/login/resend"
        /// `POST /oauth2/login/enroll`: `factor` (a factor id: `totp`, `phone`) and the fields it declares
        /// (`phoneNumber`).
        case enroll = "/oauth2/login/enroll"
        /// `POST /oauth2/login/phone`: `method` `phone` (to phone sign-in) or `password` (back).
        case phone = "/oauth2/login/phone"
        /// `POST /oauth2/login/phone/send`: `phoneNumber`, and the page's `pow-nonce`.
        case sendPhoneCode = "/oauth2/login/phone/send"
        /// `GET /oauth2/login/forgot`: the address to mail a password-reset link to.
        case forgotPassword = "/oauth2/login/forgot"
        /// `POST /oauth2/login/forgot/send`: `email`.
        case sendPasswordReset = "/oauth2/login/forgot/send"
        /// `GET /reset-password`: the page the password-reset mail links to.
        case resetPasswordPage = "/reset-password"
        /// `POST /oauth2/login/reset`: `oobCode`, `newPassword`, `tenantId`, and the page's `csrf`.
        case resetPassword = "/oauth2/login/reset"
        /// `GET` or `POST /oauth2/logout`: the end-session endpoint (RP-Initiated Logout).
        case logout = "/oauth2/logout"
        /// `POST /oauth2/logout/confirm`: the logout confirmation's form.
        case confirmLogout = "/oauth2/logout/confirm"
        /// `GET /oauth2/login.css`.
        case stylesheet = "/oauth2/login.css"
        /// `GET /oauth2/login.js`: the proof of work of the enrolment forms.
        case script = "/oauth2/login.js"

        /// The HTTP methods the route answers.
        public var methods: [HTTPMethod] {
            switch self {
            case .authorize, .page, .forgotPassword, .resetPasswordPage, .stylesheet, .script: [.get]
            case .logout: [.get, .post]
            default: [.post]
            }
        }
    }

    let context: LoginContext

    /// The handlers over the core services and the MFA router, redirecting with `iss` = `issuer` (https issuers
    /// get `Secure`, `__Host-` cookies). `trustedProxies` decide the client address the SMS limits count. A page
    /// that sends a code to an address the user typed asks a proof of work of `proofOfWorkBits` zero bits (16; 0
    /// asks none, for tests). Clients are looked up in `clients` (the server's, which its OAuth endpoints share;
    /// nil: a cache of its own).
    public init(
        services: CoreServices, router: MultiFactorRouter, issuer: String, trustedProxies: [IPNetwork] = [],
        clients: FleetCache<OAuthClient?>? = nil, logger: Logger, proofOfWorkBits: Int = 16,
        phoneSignIn: PhoneSignIn? = nil
    ) {
        context = LoginContext(
            services: services, router: router, issuer: issuer, cookies: LoginCookies(issuer: issuer),
            clients: clients ?? OAuthClients.cache(services.changes, database: services.database),
            revocations: SSORevocations(changes: services.changes, clock: services.clock),
            trustedProxies: trustedProxies, logger: logger,
            proofOfWork: LoginProofOfWork(bits: max(0, min(proofOfWorkBits, 32))), phoneSignIn: phoneSignIn)
    }

    /// Answers `request` for `route`, in the language of ``LoginContext/language(of:uiLocales:)`` (the
    /// authorization endpoint also reads `ui_locales`, and the client's tenant's default language).
    public func respond(to request: HTTPRequest, at route: Route) async -> HTTPResponse {
        // An authorization request's query is parsed once, for its `ui_locales` here and for the rest at the
        // endpoint; nil when it is malformed, which the endpoint answers.
        let query = route == .authorize ? try? request.queryItems() : nil
        let texts = Texts(context.language(of: request, uiLocales: query?["ui_locales"]))
        return await Texts.$current.withValue(texts) { await answer(request, at: route, query: query) }
    }

    private func answer(_ request: HTTPRequest, at route: Route, query: URLEncodedForm?) async -> HTTPResponse {
        switch route {
        case .authorize: return await AuthorizeEndpoint(context: context).respond(request, query: query)
        case .page: return await LoginPageEndpoint(context: context).respond(request)
        case .stylesheet: return LoginStylesheet.response()
        case .script: return LoginScript.response()
        case .forgotPassword: return await PasswordResetPages(context: context).forgot(request)
        case .resetPasswordPage: return PasswordResetPages(context: context).show(request)
        case .resetPassword: return await PasswordResetPages(context: context).reset(request)
        case .logout: return await LogoutEndpoint(context: context).respond(request)
        case .confirmLogout: return await LogoutEndpoint(context: context).confirm(request)
        case .password, .factor, .code, .resend, .enroll, .phone, .sendPhoneCode, .sendPasswordReset:
            return await submit(request, to: route)
        }
    }

    /// A form: opened with its CSRF check, then handed to its step.
    private func submit(_ request: HTTPRequest, to route: Route) async -> HTTPResponse {
        guard let form = try? request.formItems() else {
            return ErrorPage.response(.badRequest, title: "Request not valid", message: "The form could not be read.")
        }
        let context = context
        let client = context.clientAddress(request)
        return await context.withPool { pool in
            let opened: OpenedFlow
            switch try await context.openForm(pool, request, form: form) {
            case .opened(let found): opened = found
            case .refused(let response): return response
            }
            let code = (form["code"] ?? "").trimmingSpaces
            switch opened.flow.machine.action(for: route) {
            case .checkPassword:
                return try await PasswordStep(context: context).submit(pool, opened, form: form, client: client)
            case .chooseFactor:
                return try await SecondFactorStep(context: context).choose(pool, opened, form: form)
            case .verifySecondFactor:
                return try await SecondFactorStep(context: context).verify(pool, opened, code: code)
            case .verifyEnrollment:
                return try await EnrollmentStep(context: context).verify(pool, opened, code: code)
            case .verifyPhoneCode:
                return try await PhoneSignInStep(context: context).verify(pool, opened, code: code)
            case .resendPhoneCode:
                return try await PhoneSignInStep(context: context).resend(pool, opened, client: client)
            case .chooseMethod:
                return try await PhoneSignInStep(context: context).choose(pool, opened, method: form["method"])
            case .sendPasswordReset:
                return try await PasswordResetPages(context: context).send(opened, form: form, client: client)
            case .sendPhoneCode:
                return try await PhoneSignInStep(context: context).send(pool, opened, form: form, client: client)
            case .resendSignInCode:
                return try await SecondFactorStep(context: context).resend(pool, opened, client: client)
            case .resendEnrollment:
                return try await EnrollmentStep(context: context).resend(pool, opened, client: client)
            case .startEnrollment:
                return try await EnrollmentStep(context: context).start(pool, opened, form: form, client: client)
            case .showCurrentPage:
                return context.nextPage(opened)
            }
        }
    }
}
