import TesseraHTTP

/// Builds the URIs the authorization endpoint redirects to: the client's redirect URI with parameters appended
/// after `?`, or after `&` when it already has a query, each name and value percent-encoded.
public enum OAuthRedirect {
    /// `redirectURI` with `parameters` appended in order; nil values are left out.
    public static func uri(_ redirectURI: String, _ parameters: [(String, String?)]) -> String {
        var form = URLEncodedForm()
        form.fields.reserveCapacity(parameters.count)
        for (name, value) in parameters {
            if let value { form.add(name: name, value: value) }
        }
        guard !form.fields.isEmpty else { return redirectURI }
        let separator =
            if !redirectURI.utf8.contains(UInt8(ascii: "?")) {
                "?"
            } else if redirectURI.hasSuffix("?") || redirectURI.hasSuffix("&") {
                ""
            } else {
                "&"
            }
        let query = form.encoded
        var uri = ""
        uri.reserveCapacity(redirectURI.utf8.count + separator.utf8.count + query.utf8.count)
        uri += redirectURI
        uri += separator
        uri += query
        return uri
    }

    /// The success redirect: `code`, `state` (when the request had one) and `iss` (RFC 9207).
    public static func code(_ code: String, for request: AuthorizationRequest, issuer: String) -> String {
        uri(request.redirectURI, [("code", code), ("state", request.state), ("iss", issuer)])
    }

    /// The error redirect: `error`, `error_description`, `state` (when sent) and `iss`.
    public static func error(
        _ error: AuthorizationError, redirectURI: String, state: String?, issuer: String
    ) -> String {
        uri(
            redirectURI,
            [("error", error.code), ("error_description", error.description), ("state", state), ("iss", issuer)])
    }
}
