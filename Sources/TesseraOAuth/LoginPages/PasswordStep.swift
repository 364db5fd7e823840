import MultiFactor
import TesseraCore
import TesseraHTTP
import TesseraPostgres

/// The password step (`POST /oauth2/login/password`, fields `email` and `password`): signs in with the router
/// exactly as `accounts.signInWithPassword` does, in the client's tenant, so its throttle and rules apply.
struct PasswordStep: Sendable {
    let context: LoginContext

    /// Checks the password (counted against `client`'s password limit); moves the flow on, or shows the page again
    /// with the error next to the field.
    func submit(
        _ pool: PostgresPool, _ opened: OpenedFlow, form: URLEncodedForm, client: String?
    ) async throws -> HTTPResponse {
        let renderer = LoginPageRenderer(context: context)
        let email = (form["email"] ?? "").trimmingSpaces
        let password = form["password"] ?? ""
        var missing = FormErrors()
        if email.isEmpty { missing.fields["email"] = "Enter your e-mail address." }
        if password.isEmpty { missing.fields["password"] = "Enter your password." }
        guard missing.fields.isEmpty else {
            return try await renderer.render(
                pool, opened, errors: missing, status: .badRequest, typed: ["email": email])
        }
        let outcome: SignInOutcome
        do {
            outcome = try await context.firstFactor.signInWithPassword(
                email: email, password: password, tenantID: opened.flow.request.tenantID, clientAddress: client)
        } catch let error as AuthError {
            guard error.reason != .projectDisabled else {
                return ErrorPage.response(.forbidden, title: "Sign-in disabled", message: "Sign-in is disabled here.")
            }
            let (errors, status) = LoginErrorMessages.describe(error)
            return try await renderer.render(pool, opened, errors: errors, status: status, typed: ["email": email])
        }
        return try await LoginCompletion(context: context).advance(pool, opened, outcome: outcome)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
