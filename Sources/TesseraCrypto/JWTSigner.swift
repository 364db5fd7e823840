import FoundationEssentials

/// Signs JWTs in JWS compact serialization with ES256: `base64url(header).base64url(claims).base64url(r||s)`,
/// header `{"alg":"ES256","typ":…,"kid":…}`.
public struct JWTSigner: Sendable {
    /// The signing key.
    public let key: ES256PrivateKey
    /// The `kid` written into every header; verifiers find the public key by it.
    public let kid: String
    /// Encoded headers of the common types, computed once.
    private let encodedHeaders: [JWTType: String]

    /// A signer with `key`, naming it `kid` (by default the key's RFC 7638 thumbprint). An empty `kid` is
    /// refused, since no verifier could find the key.
    public init(key: ES256PrivateKey, kid: String? = nil) throws(JWTError) {
        let kid = kid ?? key.publicKey.thumbprint
        guard !kid.isEmpty else { throw .invalidHeader("kid must not be empty") }
        self.key = key
        self.kid = kid
        var headers: [JWTType: String] = [:]
        for type in [JWTType.jwt, .accessToken] { headers[type] = try Self.encodedHeader(type: type, kid: kid) }
        encodedHeaders = headers
    }

    /// The compact JWS of `claims` with header `typ` = `type` (`JWT` for ID tokens, `at+jwt` for RFC 9068 access
    /// tokens). `claims` must encode to a JSON object; the caller sets `iss`, `exp` and the rest.
    public func sign<Claims: Encodable>(_ claims: Claims, type: JWTType = .jwt) throws(JWTError) -> String {
        let payload: Data
        do { payload = try Self.encoder().encode(claims) } catch { throw .encodingFailed("claims: \(error)") }
        return try sign(payload: Array(payload), type: type)
    }

    /// The compact JWS of `payload`, the claims already serialized as a JSON object (UTF-8), with header `typ` =
    /// `type`. Throws `encodingFailed` when `payload` does not begin like a JSON object.
    public func sign(payload: [UInt8], type: JWTType = .jwt) throws(JWTError) -> String {
        guard payload.first == UInt8(ascii: "{") else { throw .encodingFailed("claims are not a JSON object") }
        let header: String
        if let cached = encodedHeaders[type] {
            header = cached
        } else {
            header = try Self.encodedHeader(type: type, kid: kid)
        }
        // The token is built in one buffer: the signing input, signed as it is, then the signature appended.
        let signatureLength = Base64Codec.encodedLength(of: 2 * ES256Curve.scalarByteCount, padded: false)
        var token: [UInt8] = []
        token.reserveCapacity(
            header.utf8.count + 1 + Base64Codec.encodedLength(of: payload.count, padded: false) + 1 + signatureLength)
        token.append(contentsOf: header.utf8)
        token.append(UInt8(ascii: "."))
        Base64Codec.url.append(encodingOf: payload, padded: false, to: &token)
        let signature: [UInt8]
        do { signature = try key.signature(for: token) } catch { throw .crypto(error) }
        token.append(UInt8(ascii: "."))
        Base64Codec.url.append(encodingOf: signature, padded: false, to: &token)
        return String(decoding: token, as: UTF8.self)
    }

    private static func encodedHeader(type: JWTType, kid: String) throws(JWTError) -> String {
        let header = JWSHeader(alg: "ES256", typ: type.rawValue, kid: kid)
        do { return Base64URL.encode(Array(try encoder().encode(header))) } catch {
            throw .encodingFailed("header: \(error)")
        }
    }

    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}
