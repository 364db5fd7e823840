/// Setting cookies on a response.
extension HTTPResponse {
    /// Adds a `Set-Cookie` field for `cookie`; throws when the cookie cannot be written.
    public mutating func setCookie(_ cookie: SetCookie) throws(SetCookieError) {
        headers.add(name: "Set-Cookie", value: try cookie.headerValue())
    }
}
