import TesseraJSON

/// The claims of an OAuth access token, a JWT per RFC 9068 (`typ: at+jwt`). `sid` names the token family (the
/// grant) the token was issued from, so introspection can tell once the grant is revoked; tokens of
/// `client_credentials` have no family, no user and no `auth_time`/`amr`.
public struct AccessTokenClaims: Decodable, Sendable, Equatable {
    public var iss: String
    /// The user's id, or the client's id for `client_credentials`.
    public var sub: String
    /// The client the token was issued to.
    public var aud: String
    public var clientID: String
    /// The granted scope, space-separated.
    public var scope: String
    public var iat: Int64
    public var exp: Int64
    /// Random, unique per token.
    public var jti: String
    /// When the user proved their first factor (seconds since 1970).
    public var authTime: Int64?
    /// How the user authenticated (RFC 8176): `pwd`, `sms`, `otp`, `mfa`.
    public var amr: [String]?
    /// The user's (or the client's) tenant.
    public var tenant: String?
    /// The token family (grant) id.
    public var sid: String?

    /// Claims given member by member.
    public init(
        iss: String, sub: String, aud: String, clientID: String, scope: String, iat: Int64, exp: Int64, jti: String,
        authTime: Int64?, amr: [String]?, tenant: String?, sid: String?
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.clientID = clientID
        self.scope = scope
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.authTime = authTime
        self.amr = amr
        self.tenant = tenant
        self.sid = sid
    }

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, scope, iat, exp, jti, amr, tenant, sid
        case clientID = "client_id"
        case authTime = "auth_time"
    }

    /// The claims as compact JSON, the token's payload, in the order above; absent members are left out.
    public var payload: [UInt8] {
        var object = JSONObjectWriter(reservingCapacity: 384)
        object.member("iss", iss)
        object.member("sub", sub)
        object.member("aud", aud)
        object.member("client_id", clientID)
        object.member("scope", scope)
        object.member("iat", iat)
        object.member("exp", exp)
        object.member("jti", jti)
        object.member("auth_time", authTime)
        object.member("amr", amr)
        object.member("tenant", tenant)
        object.member("sid", sid)
        return object.finish()
    }
}
