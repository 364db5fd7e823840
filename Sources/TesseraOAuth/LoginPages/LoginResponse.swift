import TesseraHTTP

/// Responses of the authorization endpoint and the login pages, every one with the same protective headers: a
/// strict Content Security Policy (no script at all, styles from the stylesheet route only, no framing, no
/// `<base>`), `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`, `Cache-Control: no-store` and
/// `X-Content-Type-Options: nosniff`.
///
/// `form-action` names the flow's redirect target besides `'self'`: Chromium applies `form-action` to the redirects
/// that follow a form's POST, and the last POST of a login ends in a redirect to the app (a loopback or private-use
/// URI), which `'self'` alone would block.
enum LoginResponse {
    /// The path of the stylesheet.
    static let stylesheetPath = "/oauth2/login.css"
    /// Where the pages' one script is.
    static let scriptPath = "/oauth2/login.js"

    /// An HTML page; `redirectURI` is the flow's, when the page has forms that may end in it.
    static func html(_ html: String, status: HTTPStatus = .ok, redirectURI: String? = nil) -> HTTPResponse {
        var response = HTTPResponse(status: status, body: Array(html.utf8))
        response.headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        protect(&response, redirectURI: redirectURI)
        return response
    }

    /// A redirect: `302 Found` to the client, `303 See Other` after a POST or to another page.
    static func redirect(to location: String, status: HTTPStatus = .found) -> HTTPResponse {
        var response = HTTPResponse(status: status)
        response.headers.add(name: "Location", value: location)
        protect(&response, redirectURI: nil)
        return response
    }

    /// Adds the protective headers.
    static func protect(_ response: inout HTTPResponse, redirectURI: String?) {
        response.headers.reserveCapacity(forAdding: 5)
        response.headers.add(name: "Content-Security-Policy", value: contentSecurityPolicy(redirectURI: redirectURI))
        response.headers.add(name: "X-Frame-Options", value: "DENY")
        response.headers.add(name: "Referrer-Policy", value: "no-referrer")
        response.headers.add(name: "Cache-Control", value: "no-store")
        response.headers.add(name: "X-Content-Type-Options", value: "nosniff")
    }

    /// The policy of a page whose forms may end in a redirect to `redirectURI`.
    static func contentSecurityPolicy(redirectURI: String?) -> String {
        var policy = ""
        policy.reserveCapacity(192)
        policy += "default-src 'none'; style-src 'self'; script-src 'self'; form-action 'self'"
        if let source = redirectURI.flatMap(formActionSource) {
            policy += " "
            policy += source
        }
        policy += "; frame-ancestors 'none'; base-uri 'none'"
        return policy
    }

    /// The CSP source expression of the origin of `uri` (`http://127.0.0.1:49152`, `https://app.example.com`), or
    /// of its scheme for a private-use URI (`com.example.app:`); nil when it holds anything a source expression
    /// must not (the redirect is then not allowed by `form-action`).
    static func formActionSource(_ uri: String) -> String? {
        guard let colon = uri.firstIndex(of: ":") else { return nil }
        let scheme = uri[..<colon].lowercased()
        guard !scheme.isEmpty, scheme.utf8.allSatisfy(isSchemeByte) else { return nil }
        let rest = uri[uri.index(after: colon)...]
        guard scheme == "http" || scheme == "https" else { return scheme + ":" }
        guard rest.hasPrefix("//") else { return nil }
        let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, authority.utf8.allSatisfy(isHostByte) else { return nil }
        return scheme + "://" + authority
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"),
            UInt8(ascii: "["), UInt8(ascii: "]"):
            true
        default: false
        }
    }
}
