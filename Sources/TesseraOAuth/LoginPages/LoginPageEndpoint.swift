import MultiFactor
import TesseraHTTP
import TesseraPostgres

/// `GET /oauth2/login?flow=…`: the page of the flow's current step. The code page of a factor with a sign-in start
/// step (SMS) runs it as the page is first shown (claimed once in the database, so a reload does not send again).
struct LoginPageEndpoint: Sendable {
    let context: LoginContext

    /// Shows the page.
    func respond(_ request: HTTPRequest) async -> HTTPResponse {
        let flowID = (try? request.queryItems())?["flow"]
        let client = context.clientAddress(request)
        return await context.withPool { pool in
            var opened: OpenedFlow
            switch try await context.openPage(pool, request, flowID: flowID) {
            case .opened(let found): opened = found
            case .refused(let response): return response
            }
            var errors = FormErrors.none
            var status = HTTPStatus.ok
            if opened.flow.step == .secondFactor, opened.flow.smsSentAt == nil,
                try await context.pageFactor(opened.flow.factor)?.descriptor.signInStart != nil,
                try await LoginFlows.claimSMS(pool, hash: opened.flow.hash, now: context.now)
            {
                if let failed = try await SecondFactorStep(context: context).sendCode(pool, &opened, client: client) {
                    (errors, status) = failed
                }
            }
            return try await LoginPageRenderer(context: context).render(pool, opened, errors: errors, status: status)
        }
    }
}
