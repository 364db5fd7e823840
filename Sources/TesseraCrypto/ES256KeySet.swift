/// The public keys a ``JWTVerifier`` may check signatures with, looked up by `kid`, and the JWK Set that
/// publishes them.
public struct ES256KeySet: Sendable {
    private let keys: [String: ES256PublicKey]

    /// A set of keys named by their `kid`.
    public init(_ keys: [String: ES256PublicKey]) {
        self.keys = keys
    }

    /// A set of keys each named by its RFC 7638 thumbprint (the default `kid` of ``JWTSigner``).
    public init(thumbprintKeyed keys: [ES256PublicKey]) {
        var byID: [String: ES256PublicKey] = [:]
        for key in keys { byID[key.thumbprint] = key }
        self.keys = byID
    }

    /// The keys of a JWK Set. Every key must be a valid ES256 key with a `kid`, and no `kid` may repeat.
    public init(jwks: JWKSet) throws(CryptoError) {
        var byID: [String: ES256PublicKey] = [:]
        for jwk in jwks.keys {
            guard let kid = jwk.kid, !kid.isEmpty else { throw .invalidKey("JWK without kid in a JWK Set") }
            guard byID[kid] == nil else { throw .invalidKey("kid \(kid) appears twice in a JWK Set") }
            byID[kid] = try ES256PublicKey(jwk: jwk)
        }
        keys = byID
    }

    /// The key named `kid`, or nil.
    public func publicKey(for kid: String) -> ES256PublicKey? {
        keys[kid]
    }

    /// The JWK Set of every key, sorted by `kid`.
    public var jwks: JWKSet {
        JWKSet(keys: keys.sorted { $0.key < $1.key }.map { $0.value.jwk(kid: $0.key) })
    }
}
