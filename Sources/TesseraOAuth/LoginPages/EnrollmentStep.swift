import MultiFactor
import TesseraCore
import TesseraHTTP
import TesseraJSON
import TesseraPostgres

/// The enrolment `MANDATORY` demands before a code is issued, driven through the router as
/// `mfaEnrollment.start` / `mfaEnrollment.finalize` would be with the enrolment-only ID token of the sign-in, for
/// any factor that declares login pages: the fields it asks for become its enrolment info, the page shows what its
/// display holds (a QR code and key for TOTP, instructions), and the code goes into its verification info.
struct EnrollmentStep: Sendable {
    let context: LoginContext

    /// `POST /oauth2/login/enroll` with `factor` (a factor id) and the fields that factor declares.
    func start(
        _ pool: PostgresPool, _ opened: OpenedFlow, form: URLEncodedForm, client: String?
    ) async throws -> HTTPResponse {
        var opened = opened
        guard opened.flow.credential != nil else { return context.nextPage(opened) }
        let renderer = LoginPageRenderer(context: context)
        guard let factor = try await context.pageFactor(form["factor"]) else {
            return try await renderer.render(pool, opened, errors: .general("Choose a method."), status: .badRequest)
        }
        var typed: [String: String] = [:]
        var missing = FormErrors()
        for field in factor.pages.enrollFields {
            let value = field.normalized(form[field.name] ?? "")
            typed[field.name] = value
            if field.required, value.isEmpty {
                missing.fields[field.name] = LocalizedText(
                    "Enter your {label}.", ["label": Texts.current(field.label).lowercased()])
            }
        }
        guard missing.fields.isEmpty else {
            return try await renderer.render(pool, opened, errors: missing, status: .badRequest, typed: typed)
        }
        // A code to an address the user typed: the page's script must have done its proof of work, over the values
        // as the browser had them.
        let proved = factor.pages.enrollFields.map { (form[$0.name] ?? "").trimmingSpaces }
        guard
            proved.isEmpty
                || context.proofOfWork.accepts(
                    challenge: LoginProofOfWork.challenge(flowID: opened.flowID), values: proved,
                    nonce: form["pow-nonce"])
        else {
            return try await renderer.render(
                pool, opened,
                errors: .general("This page could not check your browser. Allow its script to run, then try again."),
                status: .badRequest, typed: typed)
        }
        do {
            try await begin(pool, &opened, factor: factor, typed: typed, client: client)
        } catch let error as AuthError {
            if LoginErrorMessages.restartReasons.contains(error.reason) {
                return try await SecondFactorStep(context: context).restart(pool, &opened, error: error)
            }
            let (errors, status) = LoginErrorMessages.describe(error)
            return try await renderer.render(pool, opened, errors: errors, status: status, typed: typed)
        }
        try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now)
        return context.nextPage(opened)
    }

    /// `POST /oauth2/login/resend` while a factor that declares a resend is being enrolled: the enrolment starts
    /// again with what the user typed (a new code to the same number).
    func resend(_ pool: PostgresPool, _ opened: OpenedFlow, client: String?) async throws -> HTTPResponse {
        var opened = opened
        guard let factor = try await context.pageFactor(opened.flow.factor),
            factor.pages.resend, let challenge = opened.flow.challenge
        else { return context.nextPage(opened) }
        do {
            try await begin(pool, &opened, factor: factor, typed: challenge.fields ?? [:], client: client)
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

    /// `POST /oauth2/login/code` while enrolling: finalizes the enrolment, which signs in with the new factor. When
    /// the configuration enables a backup factor (recovery codes), its set is made next, on the same kind of page,
    /// and the sign-in completes once the user has confirmed one of its codes.
    func verify(_ pool: PostgresPool, _ opened: OpenedFlow, code: String) async throws -> HTTPResponse {
        var opened = opened
        let renderer = LoginPageRenderer(context: context)
        guard let idToken = opened.flow.credential, let factor = try await context.pageFactor(opened.flow.factor),
            let sessionInfo = opened.flow.challenge?.sessionInfo
        else { return context.nextPage(opened) }
        guard !code.isEmpty else {
            return try await renderer.render(
                pool, opened, errors: .field("code", "Enter the code."), status: .badRequest)
        }
        var info: JSONObject = ["sessionInfo": .string(sessionInfo)]
        info[factor.pages.code.infoKey] = .string(code)
        let tokens: TokenResult
        do {
            tokens = try await context.router.finalizeEnrollment(
                EnrollmentFinalizeRequest(
                    idToken: idToken, tenantID: opened.flow.request.tenantID, displayName: nil,
                    factor: factor.descriptor.id, info: info))
        } catch let error as AuthError {
            if LoginErrorMessages.restartReasons.contains(error.reason) {
                return try await SecondFactorStep(context: context).restart(pool, &opened, error: error)
            }
            let (errors, status) = LoginErrorMessages.describe(error)
            return try await renderer.render(pool, opened, errors: errors, status: status)
        }
        if !factor.descriptor.isBackup, let backup = try await backupOffer(pool, opened) {
            opened.flow.credential = tokens.idToken
            try await begin(pool, &opened, factor: backup, typed: [:], client: nil)
            try await LoginFlows.save(pool, keyRing: context.keyRing, opened.flow, now: context.now)
            return context.nextPage(opened)
        }
        return try await LoginCompletion(context: context).finish(pool, opened, tokens: tokens)
    }

    /// The backup factor (recovery codes) the flow's tenant enables and the pages can drive, if any.
    private func backupOffer(_ pool: PostgresPool, _ opened: OpenedFlow) async throws -> PageFactor? {
        let config = try await context.services.configs.forUserMethod(pool, tenantID: opened.flow.request.tenantID)
        return try await context.factors().factors.first { $0.descriptor.isBackup && $0.isEnabled(by: config.mfa) }
            .flatMap { PageFactor($0.descriptor) }
    }

    /// Starts an enrolment of `factor` with the `typed` fields as its info and moves the flow to its enrolment
    /// page (not saved); a factor with fields sends a code to what was typed, which counts against the browser's
    /// page codes. The `sessionInfo` is read where the protocol puts it: in the factor's result member.
    private func begin(
        _ pool: PostgresPool, _ opened: inout OpenedFlow, factor: PageFactor, typed: [String: String], client: String?
    ) async throws {
        guard let idToken = opened.flow.credential else { return }
        if !factor.pages.enrollFields.isEmpty { try await context.countPageCode(pool, opened.flow) }
        var info = JSONObject()
        for field in factor.pages.enrollFields {
            if let value = typed[field.name], !value.isEmpty { info[field.infoKey] = .string(value) }
        }
        var request = EnrollmentStartRequest(
            idToken: idToken, tenantID: opened.flow.request.tenantID, languageCode: Texts.current.language.rawValue,
            factor: factor.descriptor.id, info: info)
        request.clientAddress = client
        request.appVerifiedByServer = true
        let started = try await context.router.startEnrollment(request)
        let result = started.result[factor.descriptor.enrollmentResult.name]?.objectValue
        try opened.flow.startEnrollment(
            factorID: factor.id,
            challenge: LoginChallenge(
                sessionInfo: result?["sessionInfo"]?.stringValue, fields: typed.isEmpty ? nil : typed,
                manualEntryKey: started.display.manualEntryKey, qrCodeSVG: started.display.qrCodeSVG,
                instructions: started.display.instructions),
            sentAt: factor.pages.resend ? context.now : nil)
    }
}
