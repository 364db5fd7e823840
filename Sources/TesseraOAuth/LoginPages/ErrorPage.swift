import TesseraCore
import TesseraHTTP

/// The pages that end a login with an explanation instead of a form, in the language of ``Texts/current``.
enum ErrorPage {
    /// A page titled `title` saying `message`, with `status`.
    static func response(_ status: HTTPStatus, title: LocalizedText, message: LocalizedText) -> HTTPResponse {
        LoginResponse.html(
            LoginPageLayout.document(
                title: title,
                content: #"<p id="error-message" role="alert">\#(HTML.escape(Texts.current(message)))</p>"#),
            status: status)
    }

    /// A form came without a valid CSRF token or from another browser: 403, nothing changed.
    static var forbidden: HTTPResponse {
        response(
            .forbidden, title: "Request refused",
            message: "This form was not sent from this sign-in page. Return to the app and start again.")
    }

    /// The flow is unknown, expired or used.
    static func flowEnded(_ message: LocalizedText) -> HTTPResponse {
        response(.badRequest, title: "Sign-in ended", message: message)
    }

    /// Something failed on the server; details only in its log.
    static var unavailable: HTTPResponse {
        response(.serviceUnavailable, title: "Try again later", message: "The sign-in service is unavailable.")
    }
}
