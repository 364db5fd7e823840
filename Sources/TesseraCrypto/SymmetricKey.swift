import Synchronization

/// A 256-bit AES key. The only way to make one checks the length, so an ``AESGCM`` call can never run with a
/// short or long key.
///
/// Its description is redacted, so logging a key (or a value holding one) never prints key material.
public struct SymmetricKey: Sendable, CustomStringConvertible {
    /// The length of every key in bytes.
    public static let byteCount = 32

    /// The key material.
    let bytes: [UInt8]
    /// A number no other key made by this process has: copies of one key share it, so a cipher context that holds
    /// this key's schedule knows it without comparing the material (two keys made from equal bytes have two).
    let identity: UInt64
    private static let lastIdentity = Atomic<UInt64>(0)

    /// A key from exactly 32 bytes; any other length is ``AESGCMError/invalidKeyLength(_:)``.
    public init(bytes: [UInt8]) throws(AESGCMError) {
        guard bytes.count == Self.byteCount else { throw .invalidKeyLength(bytes.count) }
        self.init(unchecked: bytes)
    }

    /// A fresh key from ``SecureRandom``.
    public static func generate() throws(CryptoError) -> SymmetricKey {
        SymmetricKey(unchecked: try SecureRandom.bytes(count: byteCount))
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
        identity = Self.lastIdentity.add(1, ordering: .relaxed).newValue
    }

    /// The key's material, for storage by its owner. Handle with care: this is the secret itself.
    public var rawBytes: [UInt8] { bytes }

    /// Whether two keys hold the same material, compared in constant time.
    public func hasSameMaterial(as other: SymmetricKey) -> Bool {
        ConstantTime.equals(bytes, other.bytes)
    }

    /// `SymmetricKey(redacted)`: never the material.
    public var description: String { "SymmetricKey(redacted)" }
}
