import TesseraCore
import TesseraHTTP

/// The two cookies of the login pages, both `HttpOnly; SameSite=Lax; Path=/`, and `Secure` with a `__Host-` name
/// when the issuer is https:
/// - the browser cookie: a random secret that binds login flows and their CSRF tokens to this browser;
/// - the session cookie: the signed-in browser session (SSO, a sealed ``SessionCookie``), for
///   ``BrowserSessions/lifetime``.
struct LoginCookies: Sendable {
    /// Whether the issuer is https, so the cookies are `Secure`.
    let secure: Bool

    /// The cookies of a server whose issuer is `issuer`.
    init(issuer: String) {
        secure = issuer.lowercased().hasPrefix("https://")
    }

    var browserName: String { secure ? "__Host-tessera_browser" : "tessera_browser" }
    var sessionName: String { secure ? "__Host-tessera_session" : "tessera_session" }
    var languageName: String { secure ? "__Host-tessera_lang" : "tessera_lang" }

    /// The browser cookie: kept until the browser closes.
    func browser(_ secret: String) -> SetCookie {
        SetCookie(name: browserName, value: secret, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The language chosen at `/oauth2/authorize`, kept until the browser closes, for the pages that follow.
    func language(_ language: Language) -> SetCookie {
        SetCookie(
            name: languageName, value: language.rawValue, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The session cookie (a sealed ``SessionCookie``), for the whole session's lifetime.
    func session(_ value: String) -> SetCookie {
        SetCookie(
            name: sessionName, value: value, path: "/", maxAge: Int(BrowserSessions.lifetime), secure: secure,
            httpOnly: true, sameSite: .lax)
    }
}
