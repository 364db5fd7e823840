/// The keys that encrypt secrets at rest: one current key that seals, and older keys that still open what they
/// sealed, so the master key can rotate without re-encrypting everything at once.
///
/// ``seal(_:associatedData:)`` produces a self-describing envelope (version 1):
///
/// ```
/// [0x01][key id length L, 1...255][key id, L ASCII bytes][nonce, 12][ciphertext][tag, 16]
/// ```
///
/// The header (version, length, key id) is authenticated together with the caller's associated data, so a
/// changed key id fails like any other tampering. Bind each envelope to its row with associated data (e.g. the
/// tenant and enrolment ids) so a ciphertext copied into another row does not open there.
public struct KeyRing: Sendable {
    /// The only envelope version this code writes and reads.
    public static let envelopeVersion: UInt8 = 1

    /// The id of the key that seals.
    public let currentKeyID: String
    private let keys: [String: SymmetricKey]
    /// The header of the envelopes the current key seals (version, key id length, key id).
    private let currentHeader: [UInt8]

    /// A ring that seals with `keys[currentKeyID]` and opens envelopes of any key in `keys`. Key ids are 1 to
    /// 255 characters of `A–Z a–z 0–9 . _ -`; the current one must be in `keys`.
    public init(currentKeyID: String, keys: [String: SymmetricKey]) throws(AESGCMError) {
        for keyID in keys.keys { try Self.validate(keyID: keyID) }
        try Self.validate(keyID: currentKeyID)
        guard keys[currentKeyID] != nil else { throw .missingCurrentKey(currentKeyID) }
        self.currentKeyID = currentKeyID
        self.keys = keys
        currentHeader = Self.header(keyID: currentKeyID)
    }

    /// A ring that seals with `current` and still opens envelopes of `previous`, each named by its
    /// ``MasterKey/keyID``.
    public init(current: MasterKey, previous: [MasterKey] = []) throws(AESGCMError) {
        var keys: [String: SymmetricKey] = [:]
        for key in previous { keys[key.keyID] = key.key }
        keys[current.keyID] = current.key
        try self.init(currentKeyID: current.keyID, keys: keys)
    }

    /// The ids of every key in the ring, sorted.
    public var keyIDs: [String] { keys.keys.sorted() }

    /// An envelope of `plaintext` sealed with the current key and a fresh nonce, authenticating
    /// `associatedData` (which must be presented again to open it). Written in place: the envelope is the one
    /// allocation.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8] = []) throws(AESGCMError) -> [UInt8] {
        guard let key = keys[currentKeyID] else { throw .missingCurrentKey(currentKeyID) }
        let headerCount = currentHeader.count
        let nonceEnd = headerCount + AESGCM.nonceByteCount
        let ciphertextEnd = nonceEnd + plaintext.count
        var envelope = [UInt8](zeroes: ciphertextEnd + AESGCM.tagByteCount)
        try envelope.withUnsafeMutableBufferPointer { envelope throws(AESGCMError) in
            let bytes = UnsafeMutableRawBufferPointer(envelope)
            currentHeader.withUnsafeBufferPointer { header in
                UnsafeMutableRawBufferPointer(rebasing: bytes[..<headerCount]).copyMemory(
                    from: UnsafeRawBufferPointer(header))
            }
            try plaintext.withUnsafeBufferPointer { plaintext throws(AESGCMError) in
                try associatedData.withUnsafeBufferPointer { associatedData throws(AESGCMError) in
                    try AESGCM.seal(
                        UnsafeRawBufferPointer(plaintext),
                        nonce: UnsafeMutableRawBufferPointer(rebasing: bytes[headerCount..<nonceEnd]),
                        ciphertext: UnsafeMutableRawBufferPointer(rebasing: bytes[nonceEnd..<ciphertextEnd]),
                        tag: UnsafeMutableRawBufferPointer(rebasing: bytes[ciphertextEnd...]), using: key,
                        associatedData: (
                            UnsafeRawBufferPointer(rebasing: bytes[..<headerCount]),
                            UnsafeRawBufferPointer(associatedData)
                        ))
                }
            }
        }
        return envelope
    }

    /// The plaintext of `envelope`, opened with the key it names. Throws ``AESGCMError/unknownKeyID(_:)`` for a
    /// key the ring does not hold, ``AESGCMError/authenticationFailed`` when any byte of the envelope or the
    /// associated data differs from what was sealed, and a malformed-envelope error when it cannot be parsed. Read
    /// in place: the plaintext is the one allocation.
    public func open(_ envelope: [UInt8], associatedData: [UInt8] = []) throws(AESGCMError) -> [UInt8] {
        let parsed = try ParsedEnvelope(envelope)
        guard let key = keys[parsed.keyID] else { throw .unknownKeyID(parsed.keyID) }
        return try envelope.withUnsafeBufferPointer { envelope throws(AESGCMError) in
            try associatedData.withUnsafeBufferPointer { associatedData throws(AESGCMError) in
                let bytes = UnsafeRawBufferPointer(envelope)
                return try AESGCM.open(
                    nonce: UnsafeRawBufferPointer(rebasing: bytes[parsed.nonce]),
                    ciphertext: UnsafeRawBufferPointer(rebasing: bytes[parsed.ciphertext]),
                    tag: UnsafeRawBufferPointer(rebasing: bytes[parsed.tag]), using: key,
                    associatedData: (
                        UnsafeRawBufferPointer(rebasing: bytes[parsed.header]), UnsafeRawBufferPointer(associatedData)
                    ))
            }
        }
    }

    /// The id of the key `envelope` was sealed with, read without opening it.
    public static func keyID(of envelope: [UInt8]) throws(AESGCMError) -> String {
        try ParsedEnvelope(envelope).keyID
    }

    /// Whether `envelope` was sealed with a key other than the current one, i.e. should be opened and sealed
    /// again to finish a rotation.
    public func needsResealing(_ envelope: [UInt8]) throws(AESGCMError) -> Bool {
        try Self.keyID(of: envelope) != currentKeyID
    }

    /// A ring of keys derived from this ring's, one each, for the single use `purpose` names (authorization codes,
    /// say): HMAC-SHA256 of the purpose under each key, so the derived keys open nothing the master keys sealed and
    /// the other way round, and they rotate with the master keys (a code sealed under an older master key still
    /// opens while that key is in the ring). Each derived key's id is short (`d` and 8 characters of a digest of
    /// the derived key), as derived envelopes travel in URLs.
    public func derived(purpose: String) throws(CryptoError) -> KeyRing {
        var derived: [String: SymmetricKey] = [:]
        var current = ""
        for (keyID, key) in keys {
            let bytes = try HMAC.authenticationCode(
                for: Array("tessera key derivation v1\n\(purpose)".utf8), key: key.bytes, algorithm: .sha256)
            let name =
                "d"
                + Base64URL.encode(
                    Array(
                        try HMAC.authenticationCode(for: Array("key id".utf8), key: bytes, algorithm: .sha256).prefix(6)
                    ))
            do {
                derived[name] = try SymmetricKey(bytes: bytes)
            } catch {
                throw .invalidArgument("a derived key is not 32 bytes")
            }
            if keyID == currentKeyID { current = name }
        }
        do {
            return try KeyRing(currentKeyID: current, keys: derived)
        } catch {
            throw .invalidArgument("cannot make a derived ring: \(error)")
        }
    }

    private static func header(keyID: String) -> [UInt8] {
        let keyIDBytes = Array(keyID.utf8)
        return [envelopeVersion, UInt8(keyIDBytes.count)] + keyIDBytes
    }

    static func validate(keyID: String) throws(AESGCMError) {
        let bytes = Array(keyID.utf8)
        guard !bytes.isEmpty else { throw .invalidKeyID("empty") }
        guard bytes.count <= 255 else { throw .invalidKeyID("longer than 255 bytes") }
        guard bytes.allSatisfy(Self.isKeyIDCharacter) else {
            throw .invalidKeyID("only A-Z a-z 0-9 . _ - are allowed")
        }
    }

    static func isKeyIDCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}

/// Where an envelope's parts are; parsing checks the layout, not the tag.
private struct ParsedEnvelope {
    /// The version, key id length and key id: authenticated before the caller's associated data.
    let header: Range<Int>
    let keyID: String
    let nonce: Range<Int>
    let ciphertext: Range<Int>
    let tag: Range<Int>

    init(_ envelope: [UInt8]) throws(AESGCMError) {
        guard envelope.count >= 2 else { throw .malformedEnvelope("\(envelope.count) bytes is too short") }
        guard envelope[0] == KeyRing.envelopeVersion else { throw .unsupportedVersion(envelope[0]) }
        let keyIDLength = Int(envelope[1])
        guard keyIDLength > 0 else { throw .malformedEnvelope("empty key id") }
        let nonceStart = 2 + keyIDLength
        let tagStart = envelope.count - AESGCM.tagByteCount
        guard tagStart >= nonceStart + AESGCM.nonceByteCount else {
            throw .malformedEnvelope("\(envelope.count) bytes is too short for its key id, nonce and tag")
        }
        let keyIDBytes = envelope[2..<nonceStart]
        guard keyIDBytes.allSatisfy(KeyRing.isKeyIDCharacter) else { throw .malformedEnvelope("invalid key id") }
        keyID = String(decoding: keyIDBytes, as: UTF8.self)
        let ciphertextStart = nonceStart + AESGCM.nonceByteCount
        header = 0..<nonceStart
        nonce = nonceStart..<ciphertextStart
        ciphertext = ciphertextStart..<tagStart
        tag = tagStart..<envelope.count
    }
}
