internal import COpenSSL
import Synchronization

/// AES-256-GCM authenticated encryption (OpenSSL `EVP_CIPHER` "AES-256-GCM") with a 96-bit random nonce and a
/// 128-bit tag.
///
/// Nonces come from ``SecureRandom`` for every seal; with 96 random bits a key can seal about 2^32 messages
/// before a nonce collision becomes a concern, far beyond what Tessera encrypts under one master key. Use
/// ``KeyRing`` for data at rest: it adds a versioned envelope that names the key.
public enum AESGCM {
    /// Nonce length in bytes (96 bits, the GCM default).
    public static let nonceByteCount = 12
    /// Tag length in bytes (128 bits).
    public static let tagByteCount = 16
    /// The longest plaintext, ciphertext or associated data accepted (OpenSSL counts lengths in `int`).
    public static let maximumByteCount = 1 << 30

    /// The three parts of a sealed message.
    public struct SealedBox: Sendable, Equatable {
        /// The 12-byte nonce the message was sealed with.
        public var nonce: [UInt8]
        /// The ciphertext, as long as the plaintext.
        public var ciphertext: [UInt8]
        /// The 16-byte authentication tag over the associated data and the ciphertext.
        public var tag: [UInt8]

        /// A box from its parts, e.g. read back from storage; the lengths are checked when it is opened.
        public init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) {
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }
    }

    /// Encrypts `plaintext` under `key` with a fresh random nonce and authenticates it together with
    /// `associatedData` (which is not encrypted and must be presented again to open the box).
    public static func seal(
        _ plaintext: [UInt8],
        using key: SymmetricKey,
        associatedData: [UInt8] = []
    ) throws(AESGCMError) -> SealedBox {
        guard plaintext.count <= maximumByteCount, associatedData.count <= maximumByteCount else {
            throw .crypto(.invalidArgument("plaintext or associated data longer than \(maximumByteCount) bytes"))
        }
        let nonce: [UInt8]
        do { nonce = try SecureRandom.bytes(count: nonceByteCount) } catch { throw .crypto(error) }
        do {
            return try CipherContext().seal(plaintext, key: key, nonce: nonce, associatedData: associatedData)
        } catch {
            throw .crypto(error)
        }
    }

    /// Decrypts `box` after verifying its tag over `associatedData` and the ciphertext. Throws
    /// ``AESGCMError/authenticationFailed`` when anything differs (key, nonce, ciphertext, tag, associated
    /// data); no plaintext is ever returned from a box that fails to verify.
    public static func open(
        _ box: SealedBox,
        using key: SymmetricKey,
        associatedData: [UInt8] = []
    ) throws(AESGCMError) -> [UInt8] {
        guard box.nonce.count == nonceByteCount else {
            throw .invalidBoxLayout("nonce must be \(nonceByteCount) bytes, got \(box.nonce.count)")
        }
        guard box.tag.count == tagByteCount else {
            throw .invalidBoxLayout("tag must be \(tagByteCount) bytes, got \(box.tag.count)")
        }
        guard box.ciphertext.count <= maximumByteCount, associatedData.count <= maximumByteCount else {
            throw .crypto(.invalidArgument("ciphertext or associated data longer than \(maximumByteCount) bytes"))
        }
        let context: CipherContext
        do { context = try CipherContext() } catch { throw .crypto(error) }
        return try context.open(box, key: key, associatedData: associatedData)
    }
}

/// One `EVP_CIPHER_CTX`, used by one thread at a time, and kept for the next operation when its owner goes.
///
/// A new context costs two allocations in OpenSSL and a look-up of the cipher's implementation; one already set
/// up for AES-256-GCM takes a new key and nonce without either (`EVP_*Init_ex2` with no cipher), and only a nonce
/// when it holds the key already (its schedule and GCM's hash key are not worked out again). A context whose
/// operation failed is freed, not kept. An idle context still holds the key schedule of its last operation: keys
/// the process holds anyway (those derived from the master key), and OpenSSL wipes it when the context is freed.
private final class CipherContext {
    private let context: OpaquePointer
    /// Whether the context has been set up for AES-256-GCM by an earlier operation.
    private let isSetUp: Bool
    /// The ``SymmetricKey/identity`` of the key whose schedule the context holds; nil when it holds none.
    private var keyIdentity: UInt64?
    /// Whether the operation succeeded, so the context may serve another.
    private var reusable = false

    /// Idle contexts, set up for AES-256-GCM.
    private static let idle = Mutex<[IdleContext]>([])
    /// The most idle contexts kept: one per thread that seals or opens at once (the event loops, the thread pool).
    private static let idleLimit = 16

    init() throws(CryptoError) {
        if let idle = Self.idle.withLock({ $0.popLast() }) {
            context = idle.pointer
            keyIdentity = idle.keyIdentity
            isSetUp = true
        } else {
            guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLCall.failure("EVP_CIPHER_CTX_new") }
            self.context = context
            isSetUp = false
        }
    }

    deinit {
        let kept =
            reusable
            && Self.idle.withLock { idle -> Bool in
                guard idle.count < Self.idleLimit else { return false }
                idle.append(IdleContext(pointer: context, keyIdentity: keyIdentity))
                return true
            }
        if !kept { EVP_CIPHER_CTX_free(context) }
    }

    /// The cipher to set up a new context with; nil for one already set up, which keeps its own.
    private func cipher() throws(CryptoError) -> OpaquePointer? {
        guard !isSetUp else { return nil }
        guard let cipher = FetchedAlgorithm.aes256GCM.pointer else {
            throw .library(operation: "EVP_CIPHER_fetch(AES-256-GCM)", detail: "algorithm unavailable")
        }
        return cipher
    }

    /// The key material to set up the context with; nil when it holds `key`'s schedule already.
    private func material(of key: SymmetricKey) -> [UInt8]? {
        isSetUp && keyIdentity == key.identity ? nil : key.bytes
    }

    func seal(
        _ plaintext: [UInt8],
        key: SymmetricKey,
        nonce: [UInt8],
        associatedData: [UInt8]
    ) throws(CryptoError) -> AESGCM.SealedBox {
        try OpenSSLCall.check(
            EVP_EncryptInit_ex2(context, cipher(), material(of: key), nonce, nil), "EVP_EncryptInit_ex2")
        keyIdentity = key.identity
        var length: Int32 = 0
        if !associatedData.isEmpty {
            try OpenSSLCall.check(
                EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)),
                "EVP_EncryptUpdate(aad)"
            )
        }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written = 0
        if !plaintext.isEmpty {
            try OpenSSLCall.check(
                EVP_EncryptUpdate(context, &ciphertext, &length, plaintext, Int32(plaintext.count)),
                "EVP_EncryptUpdate"
            )
            written = Int(length)
        }
        let finalStatus = ciphertext.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress.map { $0 + written }, &length)
        }
        try OpenSSLCall.check(finalStatus, "EVP_EncryptFinal_ex")
        written += Int(length)
        var tag = [UInt8](repeating: 0, count: AESGCM.tagByteCount)
        try OpenSSLCall.check(
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(AESGCM.tagByteCount), &tag),
            "EVP_CIPHER_CTX_ctrl(GET_TAG)"
        )
        reusable = true
        ciphertext.removeLast(ciphertext.count - written)
        return AESGCM.SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    func open(_ box: AESGCM.SealedBox, key: SymmetricKey, associatedData: [UInt8]) throws(AESGCMError) -> [UInt8] {
        var tag = box.tag
        do {
            try OpenSSLCall.check(
                EVP_DecryptInit_ex2(context, cipher(), material(of: key), box.nonce, nil), "EVP_DecryptInit_ex2"
            )
            keyIdentity = key.identity
            try OpenSSLCall.check(
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(AESGCM.tagByteCount), &tag),
                "EVP_CIPHER_CTX_ctrl(SET_TAG)"
            )
        } catch {
            throw .crypto(error)
        }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                throw .crypto(OpenSSLCall.failure("EVP_DecryptUpdate(aad)"))
            }
        }
        var plaintext = [UInt8](repeating: 0, count: box.ciphertext.count + 16)
        var written = 0
        if !box.ciphertext.isEmpty {
            guard EVP_DecryptUpdate(context, &plaintext, &length, box.ciphertext, Int32(box.ciphertext.count)) == 1
            else {
                throw .crypto(OpenSSLCall.failure("EVP_DecryptUpdate"))
            }
            written = Int(length)
        }
        let finalStatus = plaintext.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress.map { $0 + written }, &length)
        }
        guard finalStatus == 1 else {
            // The tag did not verify. Wipe what was decrypted so it cannot leak through a later bug.
            OpenSSLCall.clearErrors()
            for index in plaintext.indices { plaintext[index] = 0 }
            throw .authenticationFailed
        }
        written += Int(length)
        reusable = true
        plaintext.removeLast(plaintext.count - written)
        return plaintext
    }
}

/// An idle `EVP_CIPHER_CTX` of the pool: used by one thread at a time, which the pool's lock ensures.
private struct IdleContext: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The identity of the key whose schedule it holds.
    let keyIdentity: UInt64?
}
