import MultiFactor
import TesseraCore
import TesseraHTTP
import TesseraJSON
import TesseraPostgres

/// The second-factor steps, driven through the router as `mfaSignIn.start` / `mfaSignIn.finalize` would be, so
/// every attempt counter and lock of API §4 applies: the choice among factors (`mfaEnrollmentId`), the code
/// (`code`), and for factors with a sign-in start step (SMS) the start as the code page is first shown and the
/// resend button. What goes into the factor's info comes from its descriptor.
struct SecondFactorStep: Sendable {
    let context: LoginContext

    /// `POST /oauth2/login/factor`: picks the enrolment named by `mfaEnrollmentId`, or with `chooseAnother` goes
    /// back to the choice.
    func choose(_ pool: PostgresPool, _ opened: OpenedFlow, form: URLEncodedForm) async throws -> HTTPResponse {
        var opened = opened
        if form["chooseAnother"] != nil {
            try opened.flow.chooseAnotherFactor()
        } else {
            guard let id = form["mfaEnrollmentId"],
                let chosen = opened.flow.factors.first(where: { $0.mfaEnrollmentId == id })
            else {
                try opened.flow.chooseAnotherFactor()
                return try await LoginPageRenderer(context: context).render(
                    pool, opened, errors: .field("mfaEnrollmentId", "Choose one of the methods."),
                    status: .badRequest)
            }
            try opened.flow.chooseFactor(chosen)
        }
        try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now)
        return context.nextPage(opened)
    }

    /// Runs the sign-in start step of the chosen enrolment's factor (sends the SMS) and keeps its session in the
    /// flow; the errors to show, with the page's status, when it cannot be done.
    func sendCode(
        _ pool: PostgresPool, _ opened: inout OpenedFlow, client: String?
    ) async throws -> (FormErrors, HTTPStatus)? {
        guard let credential = opened.flow.credential, let enrollmentID = opened.flow.enrollmentID,
            let members = try await context.pageFactor(opened.flow.factor)?.descriptor.signInStart
        else {
            return (.general("Choose a method first."), .badRequest)
        }
        var start = SignInStartRequest(
            pendingCredential: credential, enrollmentID: enrollmentID, tenantID: opened.flow.request.tenantID,
            languageCode: Texts.current.language.rawValue, info: nil)
        start.clientAddress = client
        start.appVerifiedByServer = true
        do {
            try await context.countPageCode(pool, opened.flow)
            let started = try await context.router.startSignIn(start)
            opened.flow.challenge = LoginChallenge(
                sessionInfo: started[members.result.name]?.objectValue?["sessionInfo"]?.stringValue)
            opened.flow.smsSentAt = context.now
            try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now)
            return nil
        } catch let error as AuthError {
            return LoginErrorMessages.describe(error)
        }
    }

    /// `POST /oauth2/login/resend` on the code page of a factor that declares a resend and has a start step.
    func resend(_ pool: PostgresPool, _ opened: OpenedFlow, client: String?) async throws -> HTTPResponse {
        var opened = opened
        guard let factor = try await context.pageFactor(opened.flow.factor),
            factor.pages.resend, factor.descriptor.signInStart != nil
        else { return context.nextPage(opened) }
        if let (errors, status) = try await sendCode(pool, &opened, client: client) {
            return try await LoginPageRenderer(context: context).render(pool, opened, errors: errors, status: status)
        }
        return context.nextPage(opened)
    }

    /// `POST /oauth2/login/code` at the second-factor step: `mfaSignIn.finalize` with the code.
    func verify(_ pool: PostgresPool, _ opened: OpenedFlow, code: String) async throws -> HTTPResponse {
        var opened = opened
        let renderer = LoginPageRenderer(context: context)
        guard let credential = opened.flow.credential, let enrollmentID = opened.flow.enrollmentID,
            let factor = try await context.pageFactor(opened.flow.factor)
        else { return context.nextPage(opened) }
        guard !code.isEmpty else {
            return try await renderer.render(
                pool, opened, errors: .field("code", "Enter the code."), status: .badRequest)
        }
        var info = JSONObject()
        if factor.descriptor.signInStart != nil {
            guard let sessionInfo = opened.flow.challenge?.sessionInfo else {
                return try await renderer.render(
                    pool, opened, errors: .field("code", "No code was sent yet. Send a new code."),
                    status: .badRequest)
            }
            info["sessionInfo"] = .string(sessionInfo)
        }
        info[factor.pages.code.infoKey] = .string(code)
        let tokens: TokenResult
        do {
            tokens = try await context.router.finalizeSignIn(
                SignInFinalizeRequest(
                    pendingCredential: credential, enrollmentID: enrollmentID, tenantID: opened.flow.request.tenantID,
                    factor: factor.descriptor.id, info: info))
        } catch let error as AuthError {
            if LoginErrorMessages.restartReasons.contains(error.reason) || error.reason == .userDisabled {
                return try await restart(pool, &opened, error: error)
            }
            let (errors, status) = LoginErrorMessages.describe(error)
            return try await renderer.render(pool, opened, errors: errors, status: status)
        }
        return try await LoginCompletion(context: context).finish(pool, opened, tokens: tokens)
    }

    /// Back to the password step, saying why.
    func restart(_ pool: PostgresPool, _ opened: inout OpenedFlow, error: AuthError) async throws -> HTTPResponse {
        try opened.flow.restart()
        try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now)
        let message: LocalizedText =
            error.reason == .userDisabled
            ? "This account has been disabled." : "Your sign-in took too long or was withdrawn. Sign in again."
        return try await LoginPageRenderer(context: context).render(
            pool, opened, errors: .general(message), status: .unauthorized)
    }
}
