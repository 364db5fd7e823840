public import TesseraHTTP
public import TesseraJSON

/// The authorization server's metadata, built from the issuer: RFC 8414 at
/// `/.well-known/oauth-authorization-server` and OpenID Connect Discovery 1.0 at
/// `/.well-known/openid-configuration` (the same document; OIDC's members are a superset RFC 8414 allows).
public struct ServerMetadata: Sendable {
    /// The scopes the server knows. Each client may use the ones it was registered with.
    public static let scopesSupported = ["openid", "profile", "email", "phone", "offline_access"]
    /// The claims an ID token can carry.
    public static let claimsSupported = [
        "iss", "sub", "aud", "azp", "iat", "exp", "auth_time", "nonce", "amr", "at_hash", "email", "email_verified",
        "name", "phone_number", "sid",
    ]

    /// The document.
    public let document: JSONObject
    private let body: [UInt8]

    /// The metadata of `issuer` (an `https` URL without a trailing slash, or with one, which is dropped for the
    /// endpoint URLs; `issuer` itself is published as given).
    public init(issuer: String) {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let secretMethods: [JSONValue] = ["client_secret_basic", "client_secret_post"]
        let allMethods: [JSONValue] = secretMethods + ["none"]
        document = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(base + "/oauth2/authorize"),
            "token_endpoint": .string(base + "/oauth2/token"),
            "jwks_uri": .string(base + "/oauth2/jwks"),
            "revocation_endpoint": .string(base + "/oauth2/revoke"),
            "introspection_endpoint": .string(base + "/oauth2/introspect"),
            "end_session_endpoint": .string(base + "/oauth2/logout"),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": .array(OAuthGrantType.allCases.map { .string($0.rawValue) }),
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": .array(allMethods),
            "revocation_endpoint_auth_methods_supported": .array(allMethods),
            "introspection_endpoint_auth_methods_supported": .array(secretMethods),
            "scopes_supported": .array(Self.scopesSupported.map(JSONValue.string)),
            "authorization_response_iss_parameter_supported": true,
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "claims_supported": .array(Self.claimsSupported.map(JSONValue.string)),
        ]
        body = JSONValue.object(document).serialized()
    }

    /// The document as `application/json`, cacheable for an hour.
    public func response() -> HTTPResponse {
        var response = HTTPResponse(status: .ok, body: body)
        response.headers.add(name: "Content-Type", value: "application/json")
        response.headers.add(name: "Cache-Control", value: "public, max-age=3600")
        return response
    }
}
