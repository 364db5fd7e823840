import MultiFactor
import TesseraCore
import TesseraHTTP
import TesseraPostgres

/// Renders the page of a flow's current step, with errors of the last submission when there are any.
struct LoginPageRenderer: Sendable {
    let context: LoginContext

    /// The page of `opened`'s step. `typed` is what the user typed into the step's text field (`email` or
    /// `phoneNumber`), shown again after an error.
    func render(
        _ pool: PostgresPool, _ opened: OpenedFlow, errors: FormErrors = .none, status: HTTPStatus = .ok,
        typed: String? = nil
    ) async throws -> HTTPResponse {
        let flow = opened.flow
        let forms = opened.forms
        let html: String
        switch flow.step {
        case .password:
            html = forms.password(email: typed ?? flow.request.loginHint, errors: errors)
        case .chooseFactor:
            html = forms.chooseFactor(flow.factors, errors: errors)
        case .secondFactor:
            html = forms.secondFactor(
                flow.factors.first { $0.mfaEnrollmentId == flow.enrollmentID },
                canChooseAnother: flow.factors.count > 1, errors: errors)
        case .chooseEnrollment:
            html = forms.chooseEnrollment(
                offers: try await enrollmentOffers(pool, tenantID: flow.request.tenantID), phoneNumber: typed,
                errors: errors)
        case .enrollTOTP:
            html = forms.enrollTOTP(flow.challenge ?? LoginChallenge(), errors: errors)
        case .enrollPhone:
            html = forms.enrollPhone(flow.challenge ?? LoginChallenge(), errors: errors)
        }
        return LoginResponse.html(html, status: status, redirectURI: flow.request.redirectURI)
    }

    /// The factors the pages can enrol that the tenant's configuration enables: `totp`, `phone`.
    func enrollmentOffers(_ pool: PostgresPool, tenantID: String?) async throws -> [String] {
        let config = try await context.services.configs.forUserMethod(pool, tenantID: tenantID)
        return ["totp", "phone"].filter { id in
            context.router.registry.factor(FactorID(rawValue: id))?.isEnabled(by: config.mfa) == true
        }
    }
}
