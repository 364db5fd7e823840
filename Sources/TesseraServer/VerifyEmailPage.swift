import TesseraCore
import TesseraHTTP

/// The page the verification mail links to (`/verify-email?oobCode=…&tenantId=…`). `GET` only shows a button:
/// mail scanners that fetch links must not verify anything. The button `POST`s the code back, which confirms
/// the address exactly as `accounts.update` does. The pages load nothing, run no script and cannot be framed.
struct VerifyEmailPage: Sendable {
    let accounts: Accounts

    /// `GET /verify-email`.
    func show(_ request: HTTPRequest) -> HTTPResponse {
        let query = (try? request.queryItems()) ?? URLEncodedForm()
        guard let code = query["oobCode"], !code.isEmpty else {
            return page(status: .badRequest, title: "Invalid link", message: "This verification link is incomplete.")
        }
        let tenantField =
            query["tenantId"].map { #"<input type="hidden" name="tenantId" value="\#(HTML.escape($0))">"# } ?? ""
        return page(
            status: .ok, title: "Verify your e-mail address",
            message: "Confirm that this e-mail address belongs to you.",
            form: """
                <form method="post" action="/verify-email">
                <input type="hidden" name="oobCode" value="\(HTML.escape(code))">\(tenantField)
                <button type="submit">Verify my e-mail address</button>
                </form>
                """)
    }

    /// `POST /verify-email`.
    func confirm(_ request: HTTPRequest) async -> HTTPResponse {
        guard let form = try? request.formItems(), let code = form["oobCode"], !code.isEmpty else {
            return page(status: .badRequest, title: "Invalid request", message: "The verification code is missing.")
        }
        do {
            let confirmed = try await accounts.confirmEmail(oobCode: code, tenantID: form["tenantId"])
            return page(
                status: .ok, title: "E-mail address verified",
                message: "\(HTML.escape(confirmed.email)) is verified. You can close this page.")
        } catch let error as AuthError where error.reason == .sessionExpired {
            return page(status: .badRequest, title: "Link expired", message: "Ask the application for a new link.")
        } catch is AuthError {
            return page(
                status: .badRequest, title: "Link not valid",
                message: "This link is not valid or has already been used.")
        } catch {
            return page(status: .serviceUnavailable, title: "Try again later", message: "The service is unavailable.")
        }
    }

    private func page(status: HTTPStatus, title: String, message: String, form: String = "") -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title)</title></head>
            <body><main><h1>\(title)</h1><p>\(message)</p>\(form)</main></body></html>
            """
        var response = HTTPResponse(status: status, body: Array(html.utf8))
        response.headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        response.headers.add(
            name: "Content-Security-Policy", value: "default-src 'none'; form-action 'self'; frame-ancestors 'none'")
        response.headers.add(name: "X-Frame-Options", value: "DENY")
        response.headers.add(name: "Referrer-Policy", value: "no-referrer")
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }
}
