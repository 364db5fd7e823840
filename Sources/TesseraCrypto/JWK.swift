/// A JSON Web Key (RFC 7517) as Tessera publishes and reads it: the members of an EC public key. Unknown
/// members (including a private `d`) are ignored when decoding and never written.
public struct JWK: Codable, Sendable, Equatable {
    /// Key type; `EC` for ES256 keys.
    public var kty: String
    /// Curve; `P-256` for ES256 keys.
    public var crv: String?
    /// Base64url of the 32-byte x coordinate.
    public var x: String?
    /// Base64url of the 32-byte y coordinate.
    public var y: String?
    /// Key id, matched against the `kid` of a JWS header.
    public var kid: String?
    /// Intended use; `sig`.
    public var use: String?
    /// Algorithm; `ES256`.
    public var alg: String?

    /// A JWK from its members.
    public init(
        kty: String, crv: String? = nil, x: String? = nil, y: String? = nil,
        kid: String? = nil, use: String? = nil, alg: String? = nil
    ) {
        self.kty = kty
        self.crv = crv
        self.x = x
        self.y = y
        self.kid = kid
        self.use = use
        self.alg = alg
    }
}
