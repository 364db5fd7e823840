/// The members of a JWS protected header that Tessera reads or writes. Other members are ignored, except that a
/// header naming any `crit` extension is refused, since Tessera understands none (RFC 7515 §4.1.11).
public struct JWSHeader: Codable, Sendable, Equatable {
    /// The signature algorithm; only `ES256` is ever accepted.
    public var alg: String?
    /// The token type, e.g. `JWT` or `at+jwt`.
    public var typ: String?
    /// The id of the signing key.
    public var kid: String?
    /// Critical extensions; present means refused.
    public var crit: [String]?

    /// A header from its members.
    public init(alg: String?, typ: String? = nil, kid: String? = nil, crit: [String]? = nil) {
        self.alg = alg
        self.typ = typ
        self.kid = kid
        self.crit = crit
    }
}
