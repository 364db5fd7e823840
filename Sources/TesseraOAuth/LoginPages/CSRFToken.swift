import TesseraCrypto

/// The CSRF token of every login form: HMAC-SHA256 of the flow id under the browser cookie's secret, in base64url.
/// It is bound to both: another browser (without the cookie) or another flow cannot produce it, and the server
/// stores nothing for it.
enum CSRFToken {
    /// The token of `flowID` for the browser holding `browserSecret`.
    static func make(browserSecret: String, flowID: String) throws -> String {
        Base64URL.encode(try mac(browserSecret: browserSecret, flowID: flowID))
    }

    /// Whether `token` is the token of `flowID` for `browserSecret`, compared in constant time.
    static func isValid(_ token: String?, browserSecret: String, flowID: String) -> Bool {
        guard let token, let presented = try? Base64URL.decode(token),
            let expected = try? mac(browserSecret: browserSecret, flowID: flowID)
        else { return false }
        return ConstantTime.equals(presented, expected)
    }

    private static func mac(browserSecret: String, flowID: String) throws -> [UInt8] {
        try HMAC.authenticationCode(
            for: "tessera-login-csrf:" + flowID, key: Array(browserSecret.utf8), algorithm: .sha256)
    }
}
