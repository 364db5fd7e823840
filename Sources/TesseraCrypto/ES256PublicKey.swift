internal import COpenSSL

/// An ECDSA P-256 public key that verifies JWS `ES256` signatures, published as a JWK.
///
/// Every way to make one checks that the point lies on P-256. Immutable; safe to share between threads.
public final class ES256PublicKey: @unchecked Sendable, Equatable {
    /// The `EVP_PKEY` holding only the public point, owned by this object.
    private let key: OpaquePointer
    /// The affine x coordinate, 32 big-endian bytes.
    public let x: [UInt8]
    /// The affine y coordinate, 32 big-endian bytes.
    public let y: [UInt8]
    /// The RFC 7638 JWK thumbprint: base64url(SHA-256(`{"crv":"P-256","kty":"EC","x":…,"y":…}`)). Tessera uses it
    /// as the default `kid`, so a key's id follows from the key and never collides by accident.
    public let thumbprint: String

    private init(key: OpaquePointer, x: [UInt8], y: [UInt8], thumbprint: String) {
        self.key = key
        self.x = x
        self.y = y
        self.thumbprint = thumbprint
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// The key with affine coordinates `x` and `y` (32 bytes each); refuses other lengths and points that are
    /// not on P-256.
    public convenience init(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        let scalar = ES256Curve.scalarByteCount
        guard x.count == scalar, y.count == scalar else {
            throw .invalidKey("P-256 coordinates must be \(scalar) bytes each, got \(x.count) and \(y.count)")
        }
        let key = try Self.importPoint([0x04] + x + y)
        let thumbprint: String
        do { thumbprint = try Self.thumbprint(x: x, y: y) } catch {
            EVP_PKEY_free(key)
            throw error
        }
        self.init(key: key, x: x, y: y, thumbprint: thumbprint)
    }

    /// The key a JWK describes: `kty` must be `EC`, `crv` `P-256`, `alg` absent or `ES256`, `use` absent or
    /// `sig`, and `x`, `y` the base64url of 32 bytes each.
    public convenience init(jwk: JWK) throws(CryptoError) {
        guard jwk.kty == "EC" else { throw .invalidKey("JWK kty must be EC, got \(jwk.kty)") }
        guard jwk.crv == "P-256" else { throw .invalidKey("JWK crv must be P-256, got \(jwk.crv ?? "nothing")") }
        if let alg = jwk.alg, alg != "ES256" { throw .invalidKey("JWK alg must be ES256, got \(alg)") }
        if let use = jwk.use, use != "sig" { throw .invalidKey("JWK use must be sig, got \(use)") }
        guard let encodedX = jwk.x, let encodedY = jwk.y else { throw .invalidKey("JWK lacks x or y") }
        let x: [UInt8]
        let y: [UInt8]
        do {
            x = try Base64URL.decode(encodedX)
            y = try Base64URL.decode(encodedY)
        } catch {
            throw .invalidKey("JWK x or y is not base64url: \(error)")
        }
        try self.init(x: x, y: y)
    }

    /// The public JWK: `{"kty":"EC","crv":"P-256","x","y","kid","use":"sig","alg":"ES256"}` with `kid`
    /// defaulting to ``thumbprint``.
    public func jwk(kid: String? = nil) -> JWK {
        JWK(
            kty: "EC", crv: "P-256", x: Base64URL.encode(x), y: Base64URL.encode(y),
            kid: kid ?? thumbprint, use: "sig", alg: "ES256"
        )
    }

    /// Whether `signature` is a valid ES256 signature of `message`: exactly 64 bytes `r || s` with `r` and `s` in
    /// 1..<n, verified by OpenSSL over SHA-256(message).
    ///
    /// By default a signature whose `s` is in the upper half of 1..<n is refused: ECDSA signatures come in pairs
    /// (`s` and `n − s` both verify), and accepting only the low one means a token has exactly one valid
    /// encoding. Tessera signs with low `s`. Pass `allowHighS: true` to accept signatures of other signers that
    /// do not normalize (RFC 7515's examples, most JOSE libraries). Any OpenSSL failure answers false.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8], allowHighS: Bool = false) -> Bool {
        let scalar = ES256Curve.scalarByteCount
        guard signature.count == 2 * scalar else { return false }
        let r = signature[0..<scalar]
        let s = signature[scalar...]
        guard ES256Curve.isValidScalar(r), ES256Curve.isValidScalar(s) else { return false }
        if !allowHighS, ES256Curve.isGreater(s, than: ES256Curve.halfOrder) { return false }
        guard let der = Self.derSignature(r: Array(r), s: Array(s)),
            let digest = try? MessageDigest.sha256.fetched(),
            let context = EVP_MD_CTX_new()
        else {
            OpenSSLCall.clearErrors()
            return false
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, digest, nil, key) == 1 else {
            OpenSSLCall.clearErrors()
            return false
        }
        let status = message.withUnsafeBufferPointer { input in
            EVP_DigestVerify(context, der, der.count, input.baseAddress, input.count)
        }
        if status != 1 { OpenSSLCall.clearErrors() }
        return status == 1
    }

    /// Whether `signature` is a valid ES256 signature of the UTF-8 bytes of `message`.
    public func isValidSignature(_ signature: [UInt8], for message: String, allowHighS: Bool = false) -> Bool {
        isValidSignature(signature, for: Array(message.utf8), allowHighS: allowHighS)
    }

    /// Whether both keys are the same point.
    public static func == (lhs: ES256PublicKey, rhs: ES256PublicKey) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y
    }

    /// The public half of an EC key pair, after checking it is on P-256.
    static func publicPart(of key: OpaquePointer) throws(CryptoError) -> ES256PublicKey {
        guard EVP_PKEY_is_a(key, "EC") == 1 else { throw .invalidKey("not an EC key") }
        var group = [CChar](repeating: 0, count: 64)
        var groupLength = 0
        guard EVP_PKEY_get_utf8_string_param(key, "group", &group, group.count, &groupLength) == 1 else {
            throw OpenSSLCall.failure("EVP_PKEY_get_utf8_string_param(group)")
        }
        let groupName = String(decoding: group.prefix(groupLength).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard groupName == ES256Curve.groupName else { throw .invalidKey("curve must be P-256, got \(groupName)") }
        return try ES256PublicKey(x: coordinate("qx", of: key), y: coordinate("qy", of: key))
    }

    private static func coordinate(_ name: String, of key: OpaquePointer) throws(CryptoError) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else {
            throw OpenSSLCall.failure("EVP_PKEY_get_bn_param(\(name))")
        }
        defer { BN_free(number) }
        return try ES256Curve.bytes(of: number)
    }

    /// An `EVP_PKEY` for the uncompressed point `0x04 || x || y`, checked to lie on P-256.
    private static func importPoint(_ point: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let imported = try withParameters(point: point) { parameters throws(CryptoError) in
            guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
                throw OpenSSLCall.failure("EVP_PKEY_CTX_new_from_name(EC)")
            }
            defer { EVP_PKEY_CTX_free(context) }
            try OpenSSLCall.check(EVP_PKEY_fromdata_init(context), "EVP_PKEY_fromdata_init")
            var imported: OpaquePointer?
            guard EVP_PKEY_fromdata(context, &imported, tessera_evp_pkey_public_key_selection(), parameters) == 1,
                let imported
            else {
                let failure = OpenSSLCall.failure("EVP_PKEY_fromdata")
                throw .invalidKey("not a point on P-256 (\(failure))")
            }
            return imported
        }
        guard let checkContext = EVP_PKEY_CTX_new_from_pkey(nil, imported, nil) else {
            EVP_PKEY_free(imported)
            throw OpenSSLCall.failure("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(checkContext) }
        guard EVP_PKEY_public_check(checkContext) == 1 else {
            EVP_PKEY_free(imported)
            let failure = OpenSSLCall.failure("EVP_PKEY_public_check")
            throw .invalidKey("not a point on P-256 (\(failure))")
        }
        return imported
    }

    /// Runs `body` with OpenSSL parameters naming the P-256 group and the public point. `OSSL_PARAM_BLD` keeps
    /// pointers to the pushed values until `OSSL_PARAM_BLD_to_param` copies them, so both buffers stay alive
    /// until then; the key names it keeps for good come from the shim's static C strings.
    private static func withParameters(
        point: [UInt8],
        _ body: (UnsafeMutablePointer<OSSL_PARAM>) throws(CryptoError) -> OpaquePointer
    ) throws(CryptoError) -> OpaquePointer {
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSLCall.failure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        let groupName = Array(ES256Curve.groupName.utf8CString)
        let parameters = groupName.withUnsafeBufferPointer { group in
            point.withUnsafeBufferPointer { pointBytes -> UnsafeMutablePointer<OSSL_PARAM>? in
                guard OSSL_PARAM_BLD_push_utf8_string(builder, tessera_param_group_name(), group.baseAddress, 0) == 1,
                    OSSL_PARAM_BLD_push_octet_string(
                        builder, tessera_param_public_key(), pointBytes.baseAddress, pointBytes.count
                    ) == 1
                else { return nil }
                return OSSL_PARAM_BLD_to_param(builder)
            }
        }
        guard let parameters else { throw OpenSSLCall.failure("OSSL_PARAM_BLD") }
        defer { OSSL_PARAM_free(parameters) }
        return try body(parameters)
    }

    private static func thumbprint(x: [UInt8], y: [UInt8]) throws(CryptoError) -> String {
        // RFC 7638 §3: the required members in lexicographic order, no whitespace. Base64url needs no escaping.
        let canonical =
            #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(x) + #"","y":""#
            + Base64URL.encode(y) + #""}"#
        return Base64URL.encode(try Digest.sha256(canonical))
    }

    /// DER `ECDSA-Sig-Value` for `r` and `s`, built by OpenSSL, or nil when OpenSSL fails.
    private static func derSignature(r: [UInt8], s: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let rNumber = BN_bin2bn(r, Int32(r.count), nil) else { return nil }
        guard let sNumber = BN_bin2bn(s, Int32(s.count), nil) else {
            BN_free(rNumber)
            return nil
        }
        guard ECDSA_SIG_set0(signature, rNumber, sNumber) == 1 else {
            BN_free(rNumber)
            BN_free(sNumber)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
