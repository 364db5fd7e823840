import TesseraJSON

/// The claims of an OpenID Connect ID token issued by the token endpoint (OIDC Core §2, §3.1.3.6): who signed
/// in, when and how, for which client, plus the profile claims the granted scope allows.
public struct OpenIDTokenClaims: Decodable, Sendable, Equatable {
    public var iss: String
    /// The user's id.
    public var sub: String
    /// The client id.
    public var aud: String
    /// The authorized party: the client id again.
    public var azp: String
    public var iat: Int64
    public var exp: Int64
    public var authTime: Int64
    /// The authorization request's `nonce`; never on refresh.
    public var nonce: String?
    public var amr: [String]
    /// base64url of the left half of the SHA-256 of the access token (OIDC Core §3.1.3.6).
    public var atHash: String
    /// With scope `email`.
    public var email: String?
    /// With scope `email`.
    public var emailVerified: Bool?
    /// With scope `profile`: the display name.
    public var name: String?
    /// With scope `phone`.
    public var phoneNumber: String?
    /// The grant (token family) the token was issued from, as in the access token; `/oauth2/logout` ends it.
    public var sid: String?

    /// Claims given member by member.
    public init(
        iss: String, sub: String, aud: String, iat: Int64, exp: Int64, authTime: Int64, nonce: String?,
        amr: [String], atHash: String, email: String? = nil, emailVerified: Bool? = nil, name: String? = nil,
        phoneNumber: String? = nil, sid: String? = nil
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.azp = aud
        self.iat = iat
        self.exp = exp
        self.authTime = authTime
        self.nonce = nonce
        self.amr = amr
        self.atHash = atHash
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.phoneNumber = phoneNumber
        self.sid = sid
    }

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, iat, exp, nonce, amr, email, name, sid
        case authTime = "auth_time"
        case atHash = "at_hash"
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
    }

    /// The claims as compact JSON, the token's payload, in the order above; absent members are left out.
    public var payload: [UInt8] {
        var object = JSONObjectWriter(reservingCapacity: 512)
        object.member("iss", iss)
        object.member("sub", sub)
        object.member("aud", aud)
        object.member("azp", azp)
        object.member("iat", iat)
        object.member("exp", exp)
        object.member("auth_time", authTime)
        object.member("nonce", nonce)
        object.member("amr", amr)
        object.member("at_hash", atHash)
        object.member("email", email)
        object.member("email_verified", emailVerified)
        object.member("name", name)
        object.member("phone_number", phoneNumber)
        object.member("sid", sid)
        return object.finish()
    }
}
