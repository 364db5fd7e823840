internal import COpenSSL

/// HMAC (RFC 2104) computed by OpenSSL's one-shot `HMAC()`, with SHA-1 (for RFC 6238 TOTP, whose
/// authenticator apps default to it), SHA-256 and SHA-512.
public enum HMAC {
    /// The hash function under the HMAC.
    public enum Algorithm: Sendable, Hashable, CaseIterable {
        /// HMAC-SHA-1: 20-byte codes. Only for interoperability (TOTP); HMAC-SHA-1 is still a sound MAC.
        case sha1
        /// HMAC-SHA-256: 32-byte codes.
        case sha256
        /// HMAC-SHA-512: 64-byte codes.
        case sha512

        /// The length of a code in bytes.
        public var outputByteCount: Int { digest.outputByteCount }

        var digest: MessageDigest {
            switch self {
            case .sha1: .sha1
            case .sha256: .sha256
            case .sha512: .sha512
            }
        }
    }

    /// The authentication code of `message` under `key`; any key length is accepted (RFC 2104 hashes keys longer
    /// than the block size). Throws only when OpenSSL fails.
    public static func authenticationCode(
        for message: [UInt8],
        key: [UInt8],
        algorithm: Algorithm
    ) throws(CryptoError) -> [UInt8] {
        guard key.count <= Int(Int32.max) else { throw .invalidArgument("HMAC key longer than 2 GiB") }
        let digest = algorithm.digest
        let evpDigest = try digest.fetched()
        var output = [UInt8](zeroes: digest.outputByteCount)
        var length: UInt32 = 0
        // OpenSSL treats a NULL key as "reuse the previous key", so an empty key must still be a valid pointer.
        let keyBytes = key.isEmpty ? [0] : key
        let result = keyBytes.withUnsafeBufferPointer { keyPointer in
            message.withUnsafeBufferPointer { messagePointer in
                COpenSSL.HMAC(
                    evpDigest, keyPointer.baseAddress, Int32(key.count),
                    messagePointer.baseAddress, messagePointer.count, &output, &length
                )
            }
        }
        guard result != nil, Int(length) == digest.outputByteCount else {
            throw OpenSSLCall.failure("HMAC(\(digest.name))")
        }
        return output
    }

    /// The authentication code of the UTF-8 bytes of `message` under `key`.
    public static func authenticationCode(
        for message: String,
        key: [UInt8],
        algorithm: Algorithm
    ) throws(CryptoError) -> [UInt8] {
        try authenticationCode(for: Array(message.utf8), key: key, algorithm: algorithm)
    }

    /// Whether `code` is the authentication code of `message` under `key`, compared in constant time. Any
    /// OpenSSL failure answers false: a check that cannot be made never passes.
    public static func isValidAuthenticationCode(
        _ code: [UInt8],
        for message: [UInt8],
        key: [UInt8],
        algorithm: Algorithm
    ) -> Bool {
        guard let expected = try? authenticationCode(for: message, key: key, algorithm: algorithm) else {
            return false
        }
        return ConstantTime.equals(code, expected)
    }
}
