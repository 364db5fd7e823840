internal import COpenSSL
import Synchronization

/// An ECDSA P-256 private key that signs with SHA-256 (JWS `ES256`, RFC 7518 §3.4).
///
/// Immutable after creation; OpenSSL allows one `EVP_PKEY` to sign from many threads at once (each signature
/// uses its own context), so one key can serve every event loop.
public final class ES256PrivateKey: @unchecked Sendable {
    /// The `EVP_PKEY`, owned by this object.
    private let key: OpaquePointer
    /// The matching public key.
    public let publicKey: ES256PublicKey
    /// Signing contexts of this key, set up once and reused: setting one up (`EVP_PKEY_CTX_new_from_pkey` and
    /// `EVP_PKEY_sign_init`, which look the algorithm up under OpenSSL's locks) costs about 2 µs of a 15 µs
    /// signature. A context signs on one thread at a time, so a signature takes one out and puts it back.
    private let signingContexts = Mutex<[SigningContext]>([])
    /// The most idle contexts kept: one per thread that signs at once (the event loops, the thread pool).
    private static let idleContextLimit = 16

    private init(key: OpaquePointer, publicKey: ES256PublicKey) {
        self.key = key
        self.publicKey = publicKey
    }

    deinit {
        EVP_PKEY_free(key)
        signingContexts.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context.pointer) }
        }
    }

    /// A new random key pair from OpenSSL's key generator.
    public static func generate() throws(CryptoError) -> ES256PrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLCall.failure("EVP_PKEY_CTX_new_from_name(EC)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLCall.check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        try OpenSSLCall.check(EVP_PKEY_CTX_set_group_name(context, "P-256"), "EVP_PKEY_CTX_set_group_name")
        var generated: OpaquePointer?
        guard EVP_PKEY_generate(context, &generated) == 1, let generated else {
            throw OpenSSLCall.failure("EVP_PKEY_generate")
        }
        return try adopt(generated)
    }

    /// The key in a PEM text: PKCS#8 (`BEGIN PRIVATE KEY`, what ``pemRepresentation()`` writes) or SEC 1
    /// (`BEGIN EC PRIVATE KEY`). Refuses encrypted PEM, other key types and curves, and keys whose public part
    /// does not match the private scalar.
    public static func fromPEM(_ pem: String) throws(CryptoError) -> ES256PrivateKey {
        let bytes = Array(pem.utf8)
        guard !bytes.isEmpty, bytes.count <= 64 * 1024 else { throw .invalidKey("PEM is empty or too long") }
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // A callback that supplies no passphrase: an encrypted key fails instead of prompting on a terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let parsed else {
            let failure = OpenSSLCall.failure("PEM_read_bio_PrivateKey")
            throw .invalidKey("not a PEM private key (\(failure))")
        }
        let key = try adopt(parsed)
        try key.checkConsistency()
        return key
    }

    /// The key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`). This is the secret itself: store it
    /// encrypted (``KeyRing``) and never log it.
    public func pemRepresentation() throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLCall.failure("BIO_new") }
        defer { BIO_free(bio) }
        try OpenSSLCall.check(PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil), "PEM_write_bio_PrivateKey")
        let pending = Int(BIO_ctrl_pending(bio))
        var output = [UInt8](repeating: 0, count: pending)
        guard pending > 0, BIO_read(bio, &output, Int32(pending)) == Int32(pending) else {
            throw OpenSSLCall.failure("BIO_read")
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The JWS signature of `message`: ECDSA P-256 over SHA-256(message) as the raw 64 bytes `r || s`
    /// (RFC 7518 §3.4), not DER. `s` is always the low one of its two valid values, so every signature this
    /// key makes passes ``ES256PublicKey/isValidSignature(_:for:allowHighS:)`` in its strict default.
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let digest = try Digest.sha256(message)
        let context = try takeSigningContext()
        // A DER ECDSA-Sig-Value for P-256 is at most 72 bytes: OpenSSL writes it to the stack, where it is read.
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 80) { der throws(CryptoError) in
            var derLength = der.count
            guard EVP_PKEY_sign(context, der.baseAddress, &derLength, digest, digest.count) == 1 else {
                EVP_PKEY_CTX_free(context)
                throw OpenSSLCall.failure("EVP_PKEY_sign")
            }
            returnSigningContext(context)
            return try Self.rawSignature(fromDER: UnsafeBufferPointer(rebasing: der[..<derLength]))
        }
    }

    /// An idle signing context of this key, or a new one ready to sign SHA-256 digests.
    private func takeSigningContext() throws(CryptoError) -> OpaquePointer {
        if let idle = signingContexts.withLock({ $0.popLast() }) { return idle.pointer }
        let digest = try MessageDigest.sha256.fetched()
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw OpenSSLCall.failure("EVP_PKEY_CTX_new_from_pkey")
        }
        do {
            try OpenSSLCall.check(EVP_PKEY_sign_init(context), "EVP_PKEY_sign_init")
            try OpenSSLCall.check(EVP_PKEY_CTX_set_signature_md(context, digest), "EVP_PKEY_CTX_set_signature_md")
        } catch {
            EVP_PKEY_CTX_free(context)
            throw error
        }
        return context
    }

    /// Keeps `context` for the next signature, unless enough are idle already.
    private func returnSigningContext(_ context: OpaquePointer) {
        let kept = signingContexts.withLock { contexts -> Bool in
            guard contexts.count < Self.idleContextLimit else { return false }
            contexts.append(SigningContext(pointer: context))
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context) }
    }

    /// The UTF-8 bytes of `message` signed as by ``signature(for:)-([UInt8])``.
    public func signature(for message: String) throws(CryptoError) -> [UInt8] {
        try signature(for: Array(message.utf8))
    }

    /// An idle `EVP_PKEY_CTX` of the pool: used by one thread at a time, which the pool's lock ensures.
    private struct SigningContext: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Converts OpenSSL's DER signature, an `ECDSA-Sig-Value` (a SEQUENCE of the INTEGERs `r` and `s`, RFC 3279
    /// §2.2.3), to JWS `r || s`, replacing a high `s` by `n − s`. Read in place, without OpenSSL's parse into two
    /// BIGNUMs (five allocations a signature): anything but two minimally encoded integers in 1..<n, each under 33
    /// bytes, in one SEQUENCE of a short length, is refused.
    static func rawSignature(fromDER der: UnsafeBufferPointer<UInt8>) throws(CryptoError) -> [UInt8] {
        let scalar = ES256Curve.scalarByteCount
        func malformed(_ detail: String) -> CryptoError { .library(operation: "ECDSA signature", detail: detail) }
        guard der.count >= 2, der[0] == 0x30, der[1] < 0x80, Int(der[1]) == der.count - 2 else {
            throw malformed("not a DER sequence")
        }
        var offset = 2
        /// The magnitude of the next INTEGER, without the zero byte that keeps a high first byte positive.
        func integer() throws(CryptoError) -> UnsafeBufferPointer<UInt8> {
            guard offset + 2 <= der.count, der[offset] == 0x02 else { throw malformed("not a DER integer") }
            let length = Int(der[offset + 1])
            let start = offset + 2
            guard length >= 1, start + length <= der.count else { throw malformed("integer length out of bounds") }
            offset = start + length
            var magnitude = UnsafeBufferPointer(rebasing: der[start..<offset])
            guard magnitude[0] & 0x80 == 0 else { throw malformed("negative") }
            if magnitude.count > 1, magnitude[0] == 0 {
                guard magnitude[1] & 0x80 != 0 else { throw malformed("integer not minimally encoded") }
                magnitude = UnsafeBufferPointer(rebasing: magnitude[1...])
            }
            guard magnitude.count <= scalar else { throw malformed("integer longer than \(scalar) bytes") }
            return magnitude
        }
        let r = try integer()
        let s = try integer()
        guard offset == der.count else { throw malformed("trailing bytes") }
        var raw = [UInt8](zeroes: 2 * scalar)
        raw.withUnsafeMutableBufferPointer { raw in
            _ = UnsafeMutableBufferPointer(rebasing: raw[(scalar - r.count)..<scalar]).update(fromContentsOf: r)
            _ = UnsafeMutableBufferPointer(rebasing: raw[(2 * scalar - s.count)...]).update(fromContentsOf: s)
        }
        guard ES256Curve.isValidScalar(raw[..<scalar]), ES256Curve.isValidScalar(raw[scalar...]) else {
            throw malformed("r or s outside 1..<n")
        }
        if ES256Curve.isGreater(raw[scalar...], than: ES256Curve.halfOrder) {
            ES256Curve.replaceWithTwin(&raw[scalar...])
        }
        return raw
    }

    /// Takes ownership of `key` (freeing it on failure) after checking it is an EC P-256 key.
    private static func adopt(_ key: OpaquePointer) throws(CryptoError) -> ES256PrivateKey {
        do {
            let publicKey = try ES256PublicKey.publicPart(of: key)
            return ES256PrivateKey(key: key, publicKey: publicKey)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
    }

    /// Checks that the private scalar and the public point belong together (OpenSSL's full key check).
    private func checkConsistency() throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw OpenSSLCall.failure("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_check(context) == 1 else {
            let failure = OpenSSLCall.failure("EVP_PKEY_check")
            throw .invalidKey("inconsistent EC key (\(failure))")
        }
    }
}
