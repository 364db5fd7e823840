/// A token whose signature, header and time claims passed ``JWTVerifier``, with its decoded claims.
public struct VerifiedJWT<Claims> {
    /// The protected header.
    public let header: JWSHeader
    /// The claims, decoded only after the signature verified.
    public let claims: Claims
}

extension VerifiedJWT: Sendable where Claims: Sendable {}
