import Logging
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraPostgres

/// Password reset in the login pages (docs/login-pages.md):
/// - `GET /oauth2/login/forgot?flow=…`, linked from the password page: the address to mail a link to;
/// - `POST /oauth2/login/forgot/send` (`email`, with the flow's `flow` and `csrf`): asks exactly as
///   `accounts.sendOobCode` with `PASSWORD_RESET` does, in the flow's tenant, and says the same whether or not the
///   address has an account;
/// - `GET /reset-password?oobCode=…&tenantId=…`, the link of the mail: a new-password form (showing it changes
///   nothing, so mail scanners that fetch links do no harm);
/// - `POST /oauth2/login/reset` (`oobCode`, `tenantId`, `newPassword`, `csrf`): resets exactly as
///   `accounts.resetPassword` does.
///
/// The reset form is bound to the browser that opened the link: its `csrf` is ``CSRFToken`` of the browser cookie
/// (set by the `GET` when missing) over the code, so a page elsewhere cannot post a password into this browser.
struct PasswordResetPages: Sendable {
    let context: LoginContext

    /// `GET /oauth2/login/forgot`.
    func forgot(_ request: HTTPRequest) async -> HTTPResponse {
        let flowID = (try? request.queryItems())?["flow"]
        return await context.withPool { pool in
            switch try await context.openPage(pool, request, flowID: flowID) {
            case .opened(let opened):
                return LoginResponse.html(opened.forms.forgotPassword(email: nil, errors: .none))
            case .refused(let response):
                return response
            }
        }
    }

    /// `POST /oauth2/login/forgot/send`, once ``OAuthLogin`` has opened the flow the form posts back.
    func send(_ opened: OpenedFlow, form: URLEncodedForm, client: String?) async throws -> HTTPResponse {
        let email = (form["email"] ?? "").trimmingSpaces
        guard !email.isEmpty else {
            return LoginResponse.html(
                opened.forms.forgotPassword(email: nil, errors: .field("email", "Enter your e-mail address.")),
                status: .badRequest)
        }
        do {
            let normalized = try await context.services.accounts.sendPasswordReset(
                email: email, tenantID: opened.flow.request.tenantID, clientAddress: client,
                languageCode: Texts.current.language.rawValue)
            return LoginResponse.html(opened.forms.resetSent(email: normalized))
        } catch let error as AuthError {
            let (errors, status): (FormErrors, HTTPStatus) =
                error.reason == .invalidEmail
                ? (.field("email", "Enter a valid e-mail address."), .badRequest)
                : LoginErrorMessages.describe(error)
            return LoginResponse.html(opened.forms.forgotPassword(email: email, errors: errors), status: status)
        }
    }

    /// `GET /reset-password`.
    func show(_ request: HTTPRequest) -> HTTPResponse {
        let query = (try? request.queryItems()) ?? URLEncodedForm()
        guard let code = query["oobCode"], !code.isEmpty else {
            return ErrorPage.response(
                .badRequest, title: "Link not valid", message: "This password-reset link is incomplete.")
        }
        let existing = request.cookie(named: context.cookies.browserName).flatMap { $0.isEmpty ? nil : $0 }
        guard let browserSecret = existing ?? (try? SecretDigest.make().secret),
            let csrf = try? Self.csrf(browserSecret: browserSecret, code: code)
        else { return ErrorPage.unavailable }
        var response = LoginResponse.html(
            Self.resetForm(code: code, tenantID: query["tenantId"], csrf: csrf, errors: .none))
        if existing == nil {
            guard (try? response.setCookie(context.cookies.browser(browserSecret))) != nil else {
                return ErrorPage.unavailable
            }
        }
        return response
    }

    /// `POST /oauth2/login/reset`.
    func reset(_ request: HTTPRequest) async -> HTTPResponse {
        guard let form = try? request.formItems(), let code = form["oobCode"], !code.isEmpty else {
            return ErrorPage.response(.badRequest, title: "Request not valid", message: "The reset code is missing.")
        }
        guard let browserSecret = request.cookie(named: context.cookies.browserName), !browserSecret.isEmpty,
            let expected = try? Self.csrf(browserSecret: browserSecret, code: code),
            let presented = form["csrf"], ConstantTime.equals(Array(presented.utf8), Array(expected.utf8))
        else {
            return ErrorPage.response(
                .forbidden, title: "Request refused",
                message: "This form was not sent from this page. Open the link of the mail again.")
        }
        let tenantID = form["tenantId"].flatMap { $0.isEmpty ? nil : $0 }
        let newPassword = form["newPassword"] ?? ""
        let again = { (errors: FormErrors, status: HTTPStatus) in
            LoginResponse.html(
                Self.resetForm(code: code, tenantID: tenantID, csrf: expected, errors: errors), status: status)
        }
        guard !newPassword.isEmpty else { return again(.field("newPassword", "Enter a new password."), .badRequest) }
        do {
            let email = try await context.services.accounts.resetPassword(
                oobCode: code, newPassword: newPassword, tenantID: tenantID)
            return LoginResponse.html(
                LoginPageLayout.document(
                    title: "Password changed",
                    content: LoginPageLayout.paragraph(
                        LocalizedText(
                            "The password of {email} has been changed, and every device signed in to the account was "
                                + "signed out. Return to the app and sign in with your new password.",
                            ["email": email]),
                        id: "reset-done")))
        } catch let error as AuthError {
            switch error.reason {
            case .weakPassword:
                return again(.field("newPassword", "Choose a password of 8 to 4096 characters."), .badRequest)
            case .sessionExpired:
                return ErrorPage.response(
                    .badRequest, title: "Link expired", message: "This link has expired. Ask for a new one.")
            case .invalidOOBCode, .tenantIDMismatch:
                return ErrorPage.response(
                    .badRequest, title: "Link not valid",
                    message: "This link is not valid or has already been used. Ask for a new one.")
            default:
                let (errors, status) = LoginErrorMessages.describe(error)
                return again(errors, status)
            }
        } catch {
            context.logger.error("password reset failed", metadata: ["error": .string(String(describing: error))])
            return ErrorPage.unavailable
        }
    }

    /// The CSRF token of the reset form of `code` in the browser holding `browserSecret`.
    static func csrf(browserSecret: String, code: String) throws -> String {
        try CSRFToken.make(browserSecret: browserSecret, flowID: "password-reset:" + code)
    }

    /// The new-password form of `code`.
    static func resetForm(code: String, tenantID: String?, csrf: String, errors: FormErrors) -> String {
        let tenantField =
            tenantID.map { #"<input type="hidden" name="tenantId" value="\#(HTML.escape($0))">"# } ?? ""
        return LoginPageLayout.document(
            title: "Choose a new password",
            content: LoginPageLayout.alert(errors.general)
                + #"<form id="reset-form" method="post" action="/oauth2/login/reset">"#
                + #"<input type="hidden" name="oobCode" value="\#(HTML.escape(code))">"# + tenantField
                + #"<input type="hidden" name="csrf" value="\#(HTML.escape(csrf))">"#
                + LoginPageLayout.field(
                    id: "newPassword", label: "New password", type: "password", autocomplete: "new-password",
                    error: errors.fields["newPassword"], hint: "8 characters or more.", extra: #"minlength="8""#)
                + #"<button id="reset-password" name="reset-password" type="submit">"#
                + HTML.escape(Texts.current("Change my password")) + "</button>"
                + "</form>")
    }
}
