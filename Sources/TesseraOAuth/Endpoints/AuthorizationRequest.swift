/// A checked authorization request (API §6, RFC 6749 §4.1.1 with RFC 7636): what the login flow remembers while
/// the user signs in, and what the code is finally issued for.
public struct AuthorizationRequest: Sendable, Equatable {
    /// The client, known and allowed to use `authorization_code`.
    public var clientID: String
    /// The client's tenant: only users of this tenant (or of the project level when nil) may sign in.
    public var tenantID: String?
    /// The redirect URI exactly as requested (a loopback URI with its port); it matched a registered one.
    public var redirectURI: String
    /// The client's `state`, echoed verbatim; nil when the request had none.
    public var state: String?
    /// The S256 `code_challenge`: 43 base64url characters.
    public var codeChallenge: String
    /// The granted scope, space-separated, a subset of the client's scopes.
    public var scope: String
    /// The OIDC `nonce`, kept for the ID token.
    public var nonce: String?
    /// The `login_hint`, pre-filled as the e-mail address.
    public var loginHint: String?
    /// The OIDC `prompt` values (`none`, `login`, …).
    public var prompt: Set<String>

    /// A request with every part given.
    public init(
        clientID: String, tenantID: String?, redirectURI: String, state: String?, codeChallenge: String, scope: String,
        nonce: String?, loginHint: String?, prompt: Set<String> = []
    ) {
        self.clientID = clientID
        self.tenantID = tenantID
        self.redirectURI = redirectURI
        self.state = state
        self.codeChallenge = codeChallenge
        self.scope = scope
        self.nonce = nonce
        self.loginHint = loginHint
        self.prompt = prompt
    }
}
