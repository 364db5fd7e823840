import TesseraCrypto

/// How bearer secrets (refresh tokens, OOB codes, admin keys, session handles) are stored: as the SHA-256 of
/// their text (DESIGN §4). A secret of 128 bits or more needs no salt or stretching; the database only ever sees
/// the digest, and lookups by digest reveal nothing about the secret.
public enum SecretDigest {
    /// The SHA-256 of `secret`'s UTF-8 bytes.
    public static func of(_ secret: String) throws -> [UInt8] {
        try Digest.sha256(secret)
    }

    /// A fresh random secret of 256 bits with `prefix` (e.g. `tsa_` for admin keys), and its digest.
    public static func make(prefix: String = "") throws -> (secret: String, digest: [UInt8]) {
        let secret = prefix + (try SecureRandom.token(byteCount: 32))
        return (secret, try of(secret))
    }
}
