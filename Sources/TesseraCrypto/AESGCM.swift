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
        var nonce = [UInt8](zeroes: nonceByteCount)
        var ciphertext = [UInt8](zeroes: plaintext.count)
        var tag = [UInt8](zeroes: tagByteCount)
        try plaintext.withUnsafeBufferPointer { plaintext throws(AESGCMError) in
            try associatedData.withUnsafeBufferPointer { associatedData throws(AESGCMError) in
                try nonce.withUnsafeMutableBufferPointer { nonce throws(AESGCMError) in
                    try ciphertext.withUnsafeMutableBufferPointer { ciphertext throws(AESGCMError) in
                        try tag.withUnsafeMutableBufferPointer { tag throws(AESGCMError) in
                            try seal(
                                UnsafeRawBufferPointer(plaintext), nonce: UnsafeMutableRawBufferPointer(nonce),
                                ciphertext: UnsafeMutableRawBufferPointer(ciphertext),
                                tag: UnsafeMutableRawBufferPointer(tag), using: key,
                                associatedData: (
                                    UnsafeRawBufferPointer(start: nil, count: 0),
                                    UnsafeRawBufferPointer(associatedData)
                                ))
                        }
                    }
                }
            }
        }
        return SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Decrypts `box` after verifying its tag over `associatedData` and the ciphertext. Throws
    /// ``AESGCMError/authenticationFailed`` when anything differs (key, nonce, ciphertext, tag, associated
    /// data); no plaintext is ever returned from a box that fails to verify.
    public static func open(
        _ box: SealedBox,
        using key: SymmetricKey,
        associatedData: [UInt8] = []
    ) throws(AESGCMError) -> [UInt8] {
        try box.nonce.withUnsafeBufferPointer { nonce throws(AESGCMError) in
            try box.ciphertext.withUnsafeBufferPointer { ciphertext throws(AESGCMError) in
                try box.tag.withUnsafeBufferPointer { tag throws(AESGCMError) in
                    try associatedData.withUnsafeBufferPointer { associatedData throws(AESGCMError) in
                        try open(
                            nonce: UnsafeRawBufferPointer(nonce), ciphertext: UnsafeRawBufferPointer(ciphertext),
                            tag: UnsafeRawBufferPointer(tag), using: key,
                            associatedData: (
                                UnsafeRawBufferPointer(start: nil, count: 0),
                                UnsafeRawBufferPointer(associatedData)
                            ))
                    }
                }
            }
        }
    }

    /// ``open(_:using:associatedData:)`` of a box's parts read in place, authenticating the two parts of
    /// `associatedData` one after the other (as if joined): how ``KeyRing`` opens an envelope without copying it
    /// apart.
    static func open(
        nonce: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer,
        tag: UnsafeRawBufferPointer,
        using key: SymmetricKey,
        associatedData: (UnsafeRawBufferPointer, UnsafeRawBufferPointer)
    ) throws(AESGCMError) -> [UInt8] {
        guard nonce.count == nonceByteCount else {
            throw .invalidBoxLayout("nonce must be \(nonceByteCount) bytes, got \(nonce.count)")
        }
        guard tag.count == tagByteCount else {
            throw .invalidBoxLayout("tag must be \(tagByteCount) bytes, got \(tag.count)")
        }
        guard ciphertext.count <= maximumByteCount,
            associatedData.0.count + associatedData.1.count <= maximumByteCount
        else {
            throw .crypto(.invalidArgument("ciphertext or associated data longer than \(maximumByteCount) bytes"))
        }
        var context: CipherContext
        do { context = try CipherContext() } catch { throw .crypto(error) }
        var plaintext = [UInt8](zeroes: ciphertext.count)
        try plaintext.withUnsafeMutableBufferPointer { plaintext throws(AESGCMError) in
            try context.open(
                ciphertext, into: UnsafeMutableRawBufferPointer(plaintext), tag: tag, key: key, nonce: nonce,
                associatedData: associatedData)
        }
        return plaintext
    }

    /// Seals `plaintext` into the parts of a box the caller has laid out (``KeyRing`` writes an envelope's nonce,
    /// ciphertext and tag in place): a fresh random nonce into `nonce`, the ciphertext into `ciphertext` (as long
    /// as `plaintext`), the tag into `tag`, authenticating the two parts of `associatedData` one after the other.
    static func seal(
        _ plaintext: UnsafeRawBufferPointer,
        nonce: UnsafeMutableRawBufferPointer,
        ciphertext: UnsafeMutableRawBufferPointer,
        tag: UnsafeMutableRawBufferPointer,
        using key: SymmetricKey,
        associatedData: (UnsafeRawBufferPointer, UnsafeRawBufferPointer)
    ) throws(AESGCMError) {
        precondition(
            nonce.count == nonceByteCount && tag.count == tagByteCount && ciphertext.count == plaintext.count,
            "the box's parts are laid out with the wrong lengths")
        guard plaintext.count <= maximumByteCount,
            associatedData.0.count + associatedData.1.count <= maximumByteCount
        else {
            throw .crypto(.invalidArgument("plaintext or associated data longer than \(maximumByteCount) bytes"))
        }
        do {
            try RandomReserve.fill(nonce)
            var context = try CipherContext()
            try context.seal(
                plaintext, into: ciphertext, tag: tag, key: key, nonce: UnsafeRawBufferPointer(nonce),
                associatedData: associatedData)
        } catch {
            throw .crypto(error)
        }
    }
}

/// One `EVP_CIPHER_CTX`, used by one thread at a time, and kept for the next operation when its owner goes.
///
/// A new context costs two allocations in OpenSSL and a look-up of the cipher's implementation; one already set
/// up for AES-256-GCM takes a new key and nonce without either (`EVP_*Init_ex2` with no cipher), and only a nonce
/// when it holds the key already (its schedule and GCM's hash key are not worked out again). A context whose
/// operation failed is freed, not kept. An idle context still holds the key schedule of its last operation: keys
/// the process holds anyway (those derived from the master key), and OpenSSL wipes it when the context is freed.
/// Not copyable, so that exactly one owner puts it back, and not an object, so that taking one allocates nothing.
private struct CipherContext: ~Copyable {
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
            && Self.idle.withLock { [context, keyIdentity] idle -> Bool in
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

    /// Sets the context up for an operation under `key` and `nonce` with `initialize` (`EVP_EncryptInit_ex2` or
    /// `EVP_DecryptInit_ex2`): the cipher only when it has none yet, the key only when it does not hold its schedule.
    private mutating func start(
        _ initialize: (
            OpaquePointer, OpaquePointer?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<OSSL_PARAM>?
        ) -> Int32,
        _ operation: String, key: SymmetricKey, nonce: UnsafeRawBufferPointer
    ) throws(CryptoError) {
        let cipher = try cipher()
        let nonce = nonce.baseAddress?.assumingMemoryBound(to: UInt8.self)
        if isSetUp && keyIdentity == key.identity {
            try OpenSSLCall.check(initialize(context, cipher, nil, nonce, nil), operation)
        } else {
            let status = key.bytes.withUnsafeBufferPointer { initialize(context, cipher, $0.baseAddress, nonce, nil) }
            try OpenSSLCall.check(status, operation)
        }
        keyIdentity = key.identity
    }

    /// Feeds the two parts of the associated data to the operation `update` (`EVP_EncryptUpdate` or
    /// `EVP_DecryptUpdate`), in order; an empty part is skipped.
    private func authenticate(
        _ associatedData: (UnsafeRawBufferPointer, UnsafeRawBufferPointer),
        with update: (
            OpaquePointer, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>, UnsafePointer<UInt8>?, Int32
        )
            -> Int32,
        _ operation: String
    ) throws(CryptoError) {
        var length: Int32 = 0
        func feed(_ part: UnsafeRawBufferPointer) throws(CryptoError) {
            guard !part.isEmpty else { return }
            try OpenSSLCall.check(
                update(context, nil, &length, part.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(part.count)),
                operation)
        }
        try feed(associatedData.0)
        try feed(associatedData.1)
    }

    /// Encrypts `plaintext` into `ciphertext` (as long) and writes the tag into `tag`. GCM is a stream mode:
    /// OpenSSL writes exactly the input's length and nothing at the end, which is checked.
    mutating func seal(
        _ plaintext: UnsafeRawBufferPointer,
        into ciphertext: UnsafeMutableRawBufferPointer,
        tag: UnsafeMutableRawBufferPointer,
        key: SymmetricKey,
        nonce: UnsafeRawBufferPointer,
        associatedData: (UnsafeRawBufferPointer, UnsafeRawBufferPointer)
    ) throws(CryptoError) {
        try start(EVP_EncryptInit_ex2, "EVP_EncryptInit_ex2", key: key, nonce: nonce)
        try authenticate(associatedData, with: EVP_EncryptUpdate, "EVP_EncryptUpdate(aad)")
        var written: Int32 = 0
        if !plaintext.isEmpty {
            try OpenSSLCall.check(
                EVP_EncryptUpdate(
                    context, ciphertext.baseAddress?.assumingMemoryBound(to: UInt8.self), &written,
                    plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(plaintext.count)),
                "EVP_EncryptUpdate")
        }
        var finalLength: Int32 = 0
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { scratch throws(CryptoError) in
            try OpenSSLCall.check(
                EVP_EncryptFinal_ex(context, scratch.baseAddress, &finalLength), "EVP_EncryptFinal_ex")
        }
        guard Int(written) == plaintext.count, finalLength == 0 else {
            throw .library(
                operation: "EVP_EncryptUpdate", detail: "wrote \(written)+\(finalLength) bytes of \(plaintext.count)")
        }
        try OpenSSLCall.check(
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(AESGCM.tagByteCount), tag.baseAddress),
            "EVP_CIPHER_CTX_ctrl(GET_TAG)"
        )
        reusable = true
    }

    /// Decrypts `ciphertext` into `plaintext` (as long) once `tag` verifies; when it does not, `plaintext` is wiped
    /// and ``AESGCMError/authenticationFailed`` thrown.
    mutating func open(
        _ ciphertext: UnsafeRawBufferPointer,
        into plaintext: UnsafeMutableRawBufferPointer,
        tag: UnsafeRawBufferPointer,
        key: SymmetricKey,
        nonce: UnsafeRawBufferPointer,
        associatedData: (UnsafeRawBufferPointer, UnsafeRawBufferPointer)
    ) throws(AESGCMError) {
        do {
            try start(EVP_DecryptInit_ex2, "EVP_DecryptInit_ex2", key: key, nonce: nonce)
            // OpenSSL copies the tag; it takes a mutable pointer only because the same call also reads tags out.
            try OpenSSLCall.check(
                EVP_CIPHER_CTX_ctrl(
                    context, EVP_CTRL_AEAD_SET_TAG, Int32(AESGCM.tagByteCount),
                    UnsafeMutableRawPointer(mutating: tag.baseAddress)),
                "EVP_CIPHER_CTX_ctrl(SET_TAG)"
            )
            try authenticate(associatedData, with: EVP_DecryptUpdate, "EVP_DecryptUpdate(aad)")
        } catch {
            throw .crypto(error)
        }
        var written: Int32 = 0
        if !ciphertext.isEmpty {
            guard
                EVP_DecryptUpdate(
                    context, plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), &written,
                    ciphertext.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(ciphertext.count)) == 1
            else {
                throw .crypto(OpenSSLCall.failure("EVP_DecryptUpdate"))
            }
        }
        var finalLength: Int32 = 0
        let finalStatus = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { scratch in
            EVP_DecryptFinal_ex(context, scratch.baseAddress, &finalLength)
        }
        guard finalStatus == 1, Int(written) == ciphertext.count, finalLength == 0 else {
            // The tag did not verify. Wipe what was decrypted so it cannot leak through a later bug.
            OpenSSLCall.clearErrors()
            if let base = plaintext.baseAddress { OPENSSL_cleanse(base, plaintext.count) }
            throw .authenticationFailed
        }
        reusable = true
    }
}

/// An idle `EVP_CIPHER_CTX` of the pool: used by one thread at a time, which the pool's lock ensures.
private struct IdleContext: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The identity of the key whose schedule it holds.
    let keyIdentity: UInt64?
}
