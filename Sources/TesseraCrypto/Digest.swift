/// One-shot SHA-2 digests computed by OpenSSL (`EVP_Digest`).
///
/// Tessera stores every secret that could sign someone in as its SHA-256 (DESIGN §4), and PKCS S256 challenges
/// are SHA-256 too, so these are on the hot path and use a digest fetched once per process.
public enum Digest {
    /// The 32-byte SHA-256 of `bytes`; throws only when OpenSSL fails, never returns a partial digest.
    public static func sha256(_ bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        try MessageDigest.sha256.hash(bytes)
    }

    /// The 32-byte SHA-256 of the UTF-8 bytes of `text`.
    public static func sha256(_ text: String) throws(CryptoError) -> [UInt8] {
        try MessageDigest.sha256.hash(text)
    }

    /// The 64-byte SHA-512 of `bytes`; throws only when OpenSSL fails, never returns a partial digest.
    public static func sha512(_ bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        try MessageDigest.sha512.hash(bytes)
    }

    /// The 64-byte SHA-512 of the UTF-8 bytes of `text`.
    public static func sha512(_ text: String) throws(CryptoError) -> [UInt8] {
        try MessageDigest.sha512.hash(text)
    }
}
