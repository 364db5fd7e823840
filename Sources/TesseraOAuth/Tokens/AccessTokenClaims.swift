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

    /// The claims as compact JSON, the token's payload, in the order above; absent members are left out. Written
    /// member by member, without a `JSONValue` tree, since every token response carries one.
    public var payload: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 384)
        writer.writeRaw("{\"iss\":")
        writer.writeString(iss)
        writer.writeRaw(",\"sub\":")
        writer.writeString(sub)
        writer.writeRaw(",\"aud\":")
        writer.writeString(aud)
        writer.writeRaw(",\"client_id\":")
        writer.writeString(clientID)
        writer.writeRaw(",\"scope\":")
        writer.writeString(scope)
        writer.writeRaw(",\"iat\":")
        writer.writeInteger(iat)
        writer.writeRaw(",\"exp\":")
        writer.writeInteger(exp)
        writer.writeRaw(",\"jti\":")
        writer.writeString(jti)
        if let authTime {
            writer.writeRaw(",\"auth_time\":")
            writer.writeInteger(authTime)
        }
        if let amr {
            writer.writeRaw(",\"amr\":")
            writer.writeStrings(amr)
        }
        if let tenant {
            writer.writeRaw(",\"tenant\":")
            writer.writeString(tenant)
        }
        if let sid {
            writer.writeRaw(",\"sid\":")
            writer.writeString(sid)
        }
        writer.writeRaw("}")
        return writer.bytes
    }
}
