internal import COpenSSL

/// Hashes passwords with scrypt (OpenSSL `EVP_PBE_scrypt`) into PHC strings, and verifies them.
///
/// The PHC string has exactly this shape:
///
/// ```
/// $scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>
/// ```
///
/// where `<salt>` (16 random bytes) and `<hash>` (32 bytes of scrypt output) are standard base64 without `=`
/// padding (the PHC "B64"), and the three parameters are decimal without leading zeros, in that order, e.g.
/// `$scrypt$ln=15,r=8,p=1$9Lh0Kx2C0hZ0dxGQz5sUzA$…` (43 hash characters). The password is hashed as its UTF-8
/// bytes, with no Unicode normalization.
///
/// Hashing is CPU- and memory-heavy by design (tens of milliseconds): never call the synchronous functions on an
/// event loop; use the variants that take an `offload` function (``hash(_:offload:)``).
public struct PasswordHasher: Sendable {
    /// Length of a new salt in bytes.
    public static let saltByteCount = 16
    /// Length of a new hash in bytes.
    public static let hashByteCount = 32

    /// The parameters of new hashes, and the bar ``needsRehash(_:)`` measures stored hashes against.
    public let parameters: ScryptParameters

    /// A hasher for `parameters` (``ScryptParameters/recommended`` by default).
    public init(parameters: ScryptParameters = .recommended) {
        self.parameters = parameters
    }

    /// A new PHC string for `password` with a fresh random salt and this hasher's parameters.
    public func hash(_ password: String) throws(PasswordHashError) -> String {
        let salt: [UInt8]
        do { salt = try SecureRandom.bytes(count: Self.saltByteCount) } catch { throw .crypto(error) }
        let derived = try Self.derive(
            Array(password.utf8), salt: salt, parameters: parameters, count: Self.hashByteCount
        )
        return StoredPasswordHash(parameters: parameters, salt: salt, hash: derived).phcString
    }

    /// Whether `password` matches the PHC string `phc`, hashed with the parameters, salt and length `phc` names
    /// and compared in constant time. A malformed `phc` throws rather than answering false, so a damaged record
    /// is noticed.
    public func verify(_ password: String, against phc: String) throws(PasswordHashError) -> Bool {
        let stored = try StoredPasswordHash(phc: phc)
        let derived = try Self.derive(
            Array(password.utf8), salt: stored.salt, parameters: stored.parameters, count: stored.hash.count
        )
        return ConstantTime.equals(derived, stored.hash)
    }

    /// Whether `phc` is weaker than what this hasher writes (a smaller N, r or p, or a shorter salt or hash), so
    /// the password should be hashed again at the next successful sign-in. Throws for a malformed `phc`.
    public func needsRehash(_ phc: String) throws(PasswordHashError) -> Bool {
        let stored = try StoredPasswordHash(phc: phc)
        return !stored.parameters.isAtLeastAsStrong(as: parameters)
            || stored.salt.count < Self.saltByteCount
            || stored.hash.count < Self.hashByteCount
    }

    /// scrypt of `password` and `salt`, `count` bytes long.
    private static func derive(
        _ password: [UInt8],
        salt: [UInt8],
        parameters: ScryptParameters,
        count: Int
    ) throws(PasswordHashError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        // OpenSSL refuses to allocate more than maxmem; give it what these parameters need plus slack.
        let maximumMemory = UInt64(parameters.memoryByteCount + (1 << 20))
        let status = password.withUnsafeBytes { passwordBytes in
            EVP_PBE_scrypt(
                passwordBytes.baseAddress?.assumingMemoryBound(to: CChar.self), passwordBytes.count,
                salt, salt.count,
                UInt64(parameters.n), UInt64(parameters.r), UInt64(parameters.p), maximumMemory,
                &output, count
            )
        }
        guard status == 1 else { throw .crypto(OpenSSLCall.failure("EVP_PBE_scrypt")) }
        return output
    }
}
