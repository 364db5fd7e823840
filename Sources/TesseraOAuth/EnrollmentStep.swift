import MultiFactor
import TesseraCore
import TesseraHTTP
import TesseraJSON
import TesseraPostgres

/// The enrolment `MANDATORY` demands before a code is issued, driven through the router as
/// `mfaEnrollment.start` / `mfaEnrollment.finalize` would be with the enrolment-only ID token of the sign-in:
/// TOTP (QR code as inline SVG, the key in text, then `code`) or a phone (`phoneNumber`, an SMS, then `code`).
struct EnrollmentStep: Sendable {
    let context: LoginContext

    /// `POST /oauth2/login/enroll` with `factor` (`totp` or `phone`) and, for a phone, `phoneNumber`.
    ///
    /// Not optimized: Swift 6.3's optimizer crashes (signal 11 while splitting this coroutine) on it in release
    /// builds. It runs once per enrolment.
    @_optimize(none)
    func start(
        _ pool: PostgresPool, _ opened: OpenedFlow, form: URLEncodedForm, client: String?
    ) async throws -> HTTPResponse {
        var opened = opened
        guard opened.flow.step == .chooseEnrollment, opened.flow.credential != nil else {
            return context.nextPage(opened)
        }
        let renderer = LoginPageRenderer(context: context)
        let phoneNumber = Self.compact(form["phoneNumber"] ?? "")
        let factor = form["factor"] ?? ""
        if let problem = Self.problem(factor: factor, phoneNumber: phoneNumber) {
            return try await renderer.render(pool, opened, errors: problem, status: .badRequest)
        }
        do {
            try await begin(&opened, factor: factor, phoneNumber: phoneNumber, client: client)
        } catch let error as AuthError {
            if LoginErrorMessages.restartReasons.contains(error.reason) {
                return try await SecondFactorStep(context: context).restart(pool, &opened, error: error)
            }
            let (errors, status) = LoginErrorMessages.describe(error)
            return try await renderer.render(pool, opened, errors: errors, status: status, typed: phoneNumber)
        }
        try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now)
        return context.nextPage(opened)
    }

    /// What is wrong with the enrolment form, if anything: an unknown `factor`, or a phone without a number.
    private static func problem(factor: String, phoneNumber: String) -> FormErrors? {
        switch factor {
        case "totp": nil
        case "phone": phoneNumber.isEmpty ? .field("phoneNumber", "Enter your phone number.") : nil
        default: .general("Choose a method.")
        }
    }

    /// `POST /oauth2/login/resend` while a phone is being enrolled: a new code to the same number.
    func resend(_ pool: PostgresPool, _ opened: OpenedFlow, client: String?) async throws -> HTTPResponse {
        var opened = opened
        guard opened.flow.step == .enrollPhone, let number = opened.flow.challenge?.phoneNumber else {
            return context.nextPage(opened)
        }
        do {
            try await begin(&opened, factor: "phone", phoneNumber: number, client: client)
        } catch let error as AuthError {
            if LoginErrorMessages.restartReasons.contains(error.reason) {
                return try await SecondFactorStep(context: context).restart(pool, &opened, error: error)
            }
            let (errors, status) = LoginErrorMessages.describe(error)
            return try await LoginPageRenderer(context: context).render(pool, opened, errors: errors, status: status)
        }
        try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now)
        return context.nextPage(opened)
    }

    /// `POST /oauth2/login/code` while enrolling: finalizes the enrolment, which signs in with the new factor.
    func verify(_ pool: PostgresPool, _ opened: OpenedFlow, code: String) async throws -> HTTPResponse {
        var opened = opened
        let renderer = LoginPageRenderer(context: context)
        guard let idToken = opened.flow.credential, let factor = opened.flow.factor,
            let sessionInfo = opened.flow.challenge?.sessionInfo
        else { return context.nextPage(opened) }
        guard !code.isEmpty else {
            return try await renderer.render(
                pool, opened, errors: .field("code", "Enter the code."), status: .badRequest)
        }
        let info: JSONObject =
            factor == "phone"
            ? ["sessionInfo": .string(sessionInfo), "code": .string(code)]
            : ["sessionInfo": .string(sessionInfo), "verificationCode": .string(code)]
        let tokens: TokenResult
        do {
            tokens = try await context.router.finalizeEnrollment(
                EnrollmentFinalizeRequest(
                    idToken: idToken, tenantID: opened.flow.request.tenantID, displayName: nil,
                    factor: FactorID(rawValue: factor), info: info))
        } catch let error as AuthError {
            if LoginErrorMessages.restartReasons.contains(error.reason) {
                return try await SecondFactorStep(context: context).restart(pool, &opened, error: error)
            }
            let (errors, status) = LoginErrorMessages.describe(error)
            return try await renderer.render(pool, opened, errors: errors, status: status)
        }
        return try await LoginCompletion(context: context).finish(pool, opened, tokens: tokens)
    }

    /// Starts an enrolment of `factor` and moves the flow to its code page (not saved).
    private func begin(_ opened: inout OpenedFlow, factor: String, phoneNumber: String, client: String?) async throws {
        guard let idToken = opened.flow.credential else { return }
        let info: JSONObject = factor == "phone" ? ["phoneNumber": .string(phoneNumber)] : [:]
        var request = EnrollmentStartRequest(
            idToken: idToken, tenantID: opened.flow.request.tenantID, languageCode: nil,
            factor: FactorID(rawValue: factor), info: info)
        request.clientAddress = client
        request.appVerifiedByServer = true
        let started = try await context.router.startEnrollment(request)
        let member = factor == "phone" ? "phoneSessionInfo" : "totpSessionInfo"
        let sessionInfo = started.result[member]?.objectValue?["sessionInfo"]?.stringValue
        opened.flow.factor = factor
        if factor == "phone" {
            opened.flow.step = .enrollPhone
            opened.flow.challenge = LoginChallenge(sessionInfo: sessionInfo, phoneNumber: phoneNumber)
            opened.flow.smsSentAt = context.now
        } else {
            opened.flow.step = .enrollTOTP
            opened.flow.challenge = LoginChallenge(
                sessionInfo: sessionInfo, manualEntryKey: started.display.manualEntryKey,
                qrCodeSVG: started.display.qrCodeSVG, instructions: started.display.instructions)
        }
    }

    /// A typed phone number without the spaces, dashes, dots and parentheses people write in them.
    static func compact(_ number: String) -> String {
        String(number.filter { !" -.()\t".contains($0) })
    }
}
