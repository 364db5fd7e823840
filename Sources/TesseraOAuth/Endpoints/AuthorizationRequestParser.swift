public import TesseraHTTP

/// Reads the query of `GET /oauth2/authorize` in the order RFC 6749 §4.1.2.1 demands: first what decides whether
/// the client may be redirected to at all (`client_id`, `redirect_uri`), then everything else, whose faults are
/// redirected to the client with an `error`.
public enum AuthorizationRequestParser {
    /// The longest `state`, `nonce` and `login_hint` accepted, in bytes.
    public static let maximumValueLength = 2048

    /// The `client_id` and `redirect_uri` of `query`, or why the request must end on an error page: a missing
    /// or repeated value. Whether they name a client and one of its URIs is checked against the client.
    public static func target(
        _ query: URLEncodedForm
    ) -> Result<(clientID: String, redirectURI: String), AuthorizationError> {
        let clientIDs = query.values(of: "client_id")
        guard clientIDs.count == 1, let clientID = clientIDs.first, !clientID.isEmpty else {
            return .failure(.invalidRequest(clientIDs.count > 1 ? "client_id is repeated." : "client_id is missing."))
        }
        let redirectURIs = query.values(of: "redirect_uri")
        guard redirectURIs.count == 1, let redirectURI = redirectURIs.first, !redirectURI.isEmpty else {
            return .failure(
                .invalidRequest(redirectURIs.count > 1 ? "redirect_uri is repeated." : "redirect_uri is missing."))
        }
        return .success((clientID, redirectURI))
    }

    /// The request of `query` for `client`, whose redirect URI already matched `redirectURI`; or the error to
    /// redirect with.
    public static func parse(
        _ query: URLEncodedForm, client: OAuthClient, redirectURI: String
    ) -> Result<AuthorizationRequest, AuthorizationError> {
        if let repeated = query.firstRepeatedName {
            return .failure(.invalidRequest("\(repeated) is repeated."))
        }
        guard let responseType = query["response_type"], !responseType.isEmpty else {
            return .failure(.invalidRequest("response_type is missing."))
        }
        guard responseType == "code" else {
            return .failure(AuthorizationError("unsupported_response_type", "Only response_type=code is supported."))
        }
        guard client.allows(.authorizationCode) else {
            return .failure(
                AuthorizationError("unauthorized_client", "The client may not use the authorization_code grant."))
        }
        guard let challenge = query["code_challenge"], !challenge.isEmpty else {
            return .failure(.invalidRequest("code_challenge is required (PKCE with S256)."))
        }
        guard query["code_challenge_method"] == "S256" else {
            return .failure(.invalidRequest("code_challenge_method must be S256."))
        }
        guard isS256Challenge(challenge) else {
            return .failure(.invalidRequest("code_challenge must be 43 base64url characters (S256)."))
        }
        for name in ["state", "nonce", "login_hint"] where (query[name]?.utf8.count ?? 0) > maximumValueLength {
            return .failure(.invalidRequest("\(name) is longer than \(maximumValueLength) bytes."))
        }
        let prompt = Set(Scope.words(query["prompt"] ?? ""))
        guard !prompt.contains("none") || prompt.count == 1 else {
            return .failure(.invalidRequest("prompt=none cannot be combined with other values."))
        }
        let scope: String
        switch grantedScope(query["scope"], client: client) {
        case .success(let granted): scope = granted
        case .failure(let error): return .failure(error)
        }
        let nonce = nonEmpty(query["nonce"])
        guard
            SealedAuthorizationCode.longestLength(scope: scope, nonce: nonce)
                <= SealedAuthorizationCode.maximumLength
        else {
            return .failure(
                .invalidRequest(
                    "nonce and scope are too long together: the code that carries them would be longer than "
                        + "\(SealedAuthorizationCode.maximumLength) characters."))
        }
        return .success(
            AuthorizationRequest(
                clientID: client.clientID, tenantID: client.tenantID, redirectURI: redirectURI,
                state: query["state"], codeChallenge: challenge, scope: scope, nonce: nonce,
                loginHint: nonEmpty(query["login_hint"]), prompt: prompt))
    }

    /// The requested scope when every token is one of the client's scopes; the client's default scopes when the
    /// request names none; else `invalid_scope`.
    static func grantedScope(_ requested: String?, client: OAuthClient) -> Result<String, AuthorizationError> {
        let scope = Scope(Scope.words(requested ?? ""))
        guard !scope.tokens.isEmpty else {
            guard let defaults = client.defaultScopes, !defaults.isEmpty else {
                return .failure(AuthorizationError("invalid_scope", "scope is required: the client has no default."))
            }
            return .success(defaults.joined(separator: " "))
        }
        guard let unknown = scope.tokens.first(where: { !client.scopes.contains($0) }) else {
            return .success(scope.text)
        }
        return .failure(AuthorizationError("invalid_scope", "The client may not ask for the scope \(unknown)."))
    }

    /// Whether `challenge` can be an S256 challenge: the base64url (no padding) of 32 bytes, 43 characters.
    static func isS256Challenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43
            && challenge.allUTF8Bytes { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    private static func nonEmpty(_ value: String?) -> String? {
        value.flatMap { $0.isEmpty ? nil : $0 }
    }
}
