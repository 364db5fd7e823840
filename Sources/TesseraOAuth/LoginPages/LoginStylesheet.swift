import TesseraHTTP

/// The stylesheet of the login pages (`GET /oauth2/login.css`), the only style source the CSP allows. The pages
/// read well without it; it adds spacing, legible sizes and a visible focus ring.
enum LoginStylesheet {
    static let css = """
        body { font-family: system-ui, sans-serif; line-height: 1.5; margin: 0; color: #1a1a1a; background: #f6f6f6; }
        main { max-width: 26rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border: 1px solid #ccc; }
        h1 { font-size: 1.5rem; margin-top: 0; }
        .field { margin: 1rem 0; }
        label { display: block; font-weight: 600; }
        input[type=email], input[type=password], input[type=text], input[type=tel] {
            box-sizing: border-box; width: 100%; padding: .5rem; font-size: 1rem; border: 1px solid #666; }
        fieldset { border: 1px solid #ccc; margin: 1rem 0; }
        fieldset label { display: inline; font-weight: normal; }
        button { font-size: 1rem; padding: .5rem 1rem; margin: .5rem .5rem .5rem 0; cursor: pointer; }
        .error { color: #b00020; font-weight: 600; }
        .hint { color: #444; margin: 0; }
        .qr-code svg { width: 12rem; height: 12rem; }
        code { font-size: 1.1rem; word-break: break-all; }
        :focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
        """

    /// The stylesheet response.
    static func response() -> HTTPResponse {
        var response = HTTPResponse(status: .ok, body: Array(css.utf8))
        response.headers.add(name: "Content-Type", value: "text/css; charset=utf-8")
        LoginResponse.protect(&response, redirectURI: nil)
        return response
    }
}
