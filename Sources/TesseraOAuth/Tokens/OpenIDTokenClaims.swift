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

    /// The claims as compact JSON, the token's payload, in the order above; absent members are left out. Written
    /// member by member, without a `JSONValue` tree.
    public var payload: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512)
        writer.writeRaw("{\"iss\":")
        writer.writeString(iss)
        writer.writeRaw(",\"sub\":")
        writer.writeString(sub)
        writer.writeRaw(",\"aud\":")
        writer.writeString(aud)
        writer.writeRaw(",\"azp\":")
        writer.writeString(azp)
        writer.writeRaw(",\"iat\":")
        writer.writeInteger(iat)
        writer.writeRaw(",\"exp\":")
        writer.writeInteger(exp)
        writer.writeRaw(",\"auth_time\":")
        writer.writeInteger(authTime)
        if let nonce {
            writer.writeRaw(",\"nonce\":")
            writer.writeString(nonce)
        }
        writer.writeRaw(",\"amr\":")
        writer.writeStrings(amr)
        writer.writeRaw(",\"at_hash\":")
        writer.writeString(atHash)
        if let email {
            writer.writeRaw(",\"email\":")
            writer.writeString(email)
        }
        if let emailVerified {
            writer.writeRaw(emailVerified ? ",\"email_verified\":true" : ",\"email_verified\":false")
        }
        if let name {
            writer.writeRaw(",\"name\":")
            writer.writeString(name)
        }
        if let phoneNumber {
            writer.writeRaw(",\"phone_number\":")
            writer.writeString(phoneNumber)
        }
        if let sid {
            writer.writeRaw(",\"sid\":")
            writer.writeString(sid)
        }
        writer.writeRaw("}")
        return writer.bytes
    }
}
