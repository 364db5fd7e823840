import MultiFactor
import TesseraCore
import TesseraHTTP
import TesseraPostgres

/// Renders the page of a flow's current step, with errors of the last submission when there are any. What a page
/// shows of a factor comes from the factor's descriptor in the router's registry.
struct LoginPageRenderer: Sendable {
    let context: LoginContext

    /// The page of `opened`'s step. `typed` is what the user typed into the step's text fields (`email`, or an
    /// enrolment field such as `phoneNumber`), by field name, shown again after an error.
    func render(
        _ pool: PostgresPool, _ opened: OpenedFlow, errors: FormErrors = .none, status: HTTPStatus = .ok,
        typed: [String: String] = [:]
    ) async throws -> HTTPResponse {
        let flow = opened.flow
        let forms = opened.forms
        let factors = try await context.factors()
        let html: String
        switch flow.step {
        case .password:
            let client = try await OAuthClients.find(pool, clientID: flow.request.clientID)
            let config = try await context.services.configs.forUserMethod(pool, tenantID: flow.request.tenantID)
            html = forms.password(
                email: typed["email"] ?? flow.request.loginHint, errors: errors,
                asker: (client: client?.clientName ?? flow.request.clientID, realm: config.issuerName),
                offersPhone: context.phoneSignIn != nil && config.phoneSignInEnabled)
        case .phoneNumber:
            html = forms.phoneNumber(typed: typed["phoneNumber"], errors: errors)
        case .phoneCode:
            html = forms.phoneCode(number: flow.challenge?.fields?["phoneNumber"] ?? "", errors: errors)
        case .chooseFactor:
            let choices = flow.factors.map { enrollment in
                (
                    enrollment,
                    PageFactor(enrollment.factorID, in: factors)?.label(of: enrollment)
                        ?? Texts.current("Second factor")
                )
            }
            html = forms.chooseFactor(choices, errors: errors)
        case .secondFactor:
            html = forms.secondFactor(
                flow.factors.first { $0.mfaEnrollmentId == flow.enrollmentID },
                factor: PageFactor(flow.factor, in: factors),
                canChooseAnother: flow.factors.count > 1, errors: errors)
        case .chooseEnrollment:
            html = forms.chooseEnrollment(
                offers: try await enrollmentOffers(pool, factors, tenantID: flow.request.tenantID), typed: typed,
                errors: errors)
        case .enrollFactor:
            html = forms.enrollFactor(
                PageFactor(flow.factor, in: factors), flow.challenge ?? LoginChallenge(), errors: errors)
        }
        return LoginResponse.html(html, status: status, redirectURI: flow.request.redirectURI)
    }

    /// The factors of `factors`, in registration order, that the tenant's configuration enables and that declare
    /// login pages, but no backup factor (recovery codes are enrolled beside another factor, never instead).
    func enrollmentOffers(
        _ pool: PostgresPool, _ factors: FactorRegistry, tenantID: String?
    ) async throws -> [PageFactor] {
        let config = try await context.services.configs.forUserMethod(pool, tenantID: tenantID)
        return factors.factors.filter { $0.isEnabled(by: config.mfa) && !$0.descriptor.isBackup }.compactMap {
            PageFactor($0.descriptor)
        }
    }
}
