/// A JWK Set (RFC 7517 §5), the document served at `/oauth2/jwks`: `{"keys":[…]}`.
public struct JWKSet: Codable, Sendable, Equatable {
    /// The keys.
    public var keys: [JWK]

    /// A set of `keys`.
    public init(keys: [JWK]) {
        self.keys = keys
    }
}
