import MultiFactor
import PhoneSignIn
import TesseraCore
import TesseraHTTP
import TesseraPostgres

/// Phone sign-in in the login pages (docs/login-pages.md#phone-sign-in), where the tenant enables it: the number,
/// then the code sent to it, exactly as `accounts.sendVerificationCode` and `accounts.signInWithPhoneNumber` do it
/// (the same send limits, test numbers and regions; a number that is someone's second factor is refused after the
/// right code, as the RPC refuses it). The page vouches for the app itself, as the SMS factor's pages do: its proof
/// of work over the typed number, and at most ``LoginContext/pageCodesPerBrowser`` codes per browser.
struct PhoneSignInStep: Sendable {
    let context: LoginContext

    /// `POST /oauth2/login/phone`: `method` `phone` goes to (or back to) the number; `password` back to e-mail and
    /// password. Only before a first factor has passed.
    func choose(_ pool: PostgresPool, _ opened: OpenedFlow, method: String?) async throws -> HTTPResponse {
        var opened = opened
        guard opened.flow.userID == nil else { return context.nextPage(opened) }
        switch method {
        case "phone":
            guard try await isOffered(pool, opened) else {
                return try await LoginPageRenderer(context: context).render(
                    pool, opened, errors: .general("This method is not available. Choose another one."),
                    status: .badRequest)
            }
            try opened.flow.choosePhoneSignIn()
        case "password":
            try opened.flow.choosePassword()
        default:
            return context.nextPage(opened)
        }
        try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now)
        return context.nextPage(opened)
    }

    /// `POST /oauth2/login/phone/send`: checks the proof of work over the typed number, counts the browser's code,
    /// and sends the code; the flow then waits for it.
    func send(
        _ pool: PostgresPool, _ opened: OpenedFlow, form: URLEncodedForm, client: String?
    ) async throws -> HTTPResponse {
        var opened = opened
        let renderer = LoginPageRenderer(context: context)
        let typed = (form["phoneNumber"] ?? "").trimmingSpaces
        let number = typed.filter { !" -().".contains($0) }
        guard !number.isEmpty else {
            return try await renderer.render(
                pool, opened, errors: .field("phoneNumber", "Enter your phone number."), status: .badRequest,
                typed: ["phoneNumber": typed])
        }
        guard
            context.proofOfWork.accepts(
                challenge: LoginProofOfWork.challenge(flowID: opened.flowID), values: [typed], nonce: form["pow-nonce"])
        else {
            return try await renderer.render(
                pool, opened,
                errors: .general("This page could not check your browser. Allow its script to run, then try again."),
                status: .badRequest, typed: ["phoneNumber": typed])
        }
        do {
            try await sendCode(pool, &opened, to: number, client: client)
        } catch let error as AuthError {
            let (errors, status) = LoginErrorMessages.describe(error)
            return try await renderer.render(
                pool, opened, errors: errors, status: status, typed: ["phoneNumber": typed])
        }
        try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now)
        return context.nextPage(opened)
    }

    /// `POST /oauth2/login/resend` on the code page: another code to the same number.
    func resend(_ pool: PostgresPool, _ opened: OpenedFlow, client: String?) async throws -> HTTPResponse {
        var opened = opened
        guard let number = opened.flow.challenge?.fields?["phoneNumber"] else { return context.nextPage(opened) }
        do {
            try await sendCode(pool, &opened, to: number, client: client)
        } catch let error as AuthError {
            let (errors, status) = LoginErrorMessages.describe(error)
            return try await LoginPageRenderer(context: context).render(pool, opened, errors: errors, status: status)
        }
        try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now)
        return context.nextPage(opened)
    }

    /// `POST /oauth2/login/code` on the code page: signs in with the number (creating its account on first use)
    /// and moves on as after a password (an enrolment `MANDATORY` demands, or the code for the app).
    func verify(_ pool: PostgresPool, _ opened: OpenedFlow, code: String) async throws -> HTTPResponse {
        let renderer = LoginPageRenderer(context: context)
        guard let phoneSignIn = context.phoneSignIn, let sessionInfo = opened.flow.challenge?.sessionInfo else {
            return context.nextPage(opened)
        }
        guard !code.isEmpty else {
            return try await renderer.render(
                pool, opened, errors: .field("code", "Enter the code."), status: .badRequest)
        }
        let outcome: SignInOutcome
        do {
            outcome = try await phoneSignIn.signInOutcome(
                sessionInfo: sessionInfo, code: code, tenantID: opened.flow.request.tenantID
            ).outcome
        } catch let error as AuthError {
            let (errors, status): (FormErrors, HTTPStatus) =
                switch error.reason {
                case .unsupportedFirstFactor:
                    (
                        .general(
                            LocalizedText(
                                "This number protects an account as its second factor. Sign in with that account's "
                                    + "e-mail address and password.")), .badRequest
                    )
                case .invalidSessionInfo, .sessionExpired:
                    (.field("code", "This code has expired or was replaced. Send a new code."), .badRequest)
                default: LoginErrorMessages.describe(error)
                }
            return try await renderer.render(pool, opened, errors: errors, status: status)
        }
        return try await LoginCompletion(context: context).advance(pool, opened, outcome: outcome)
    }

    /// Whether the pages offer phone sign-in in the flow's tenant.
    private func isOffered(_ pool: PostgresPool, _ opened: OpenedFlow) async throws -> Bool {
        guard context.phoneSignIn != nil else { return false }
        return try await context.services.configs.forUserMethod(pool, tenantID: opened.flow.request.tenantID)
            .phoneSignInEnabled
    }

    /// Counts the browser's code and sends one to `number` in the page's language; the flow (not saved) then waits
    /// for it.
    private func sendCode(
        _ pool: PostgresPool, _ opened: inout OpenedFlow, to number: String, client: String?
    )
        async throws
    {
        guard let phoneSignIn = context.phoneSignIn else {
            throw AuthError(.operationNotAllowed, "Phone sign-in is not offered here.")
        }
        try await context.countPageCode(pool, opened.flow)
        let sessionInfo = try await phoneSignIn.sendVerificationCode(
            phoneNumber: number, tenantID: opened.flow.request.tenantID, appVerification: nil,
            languageCode: Texts.current.language.rawValue, clientAddress: client, appVerifiedByServer: true)
        try opened.flow.awaitPhoneCode(
            LoginChallenge(sessionInfo: sessionInfo, fields: ["phoneNumber": number]), sentAt: context.now)
    }
}
