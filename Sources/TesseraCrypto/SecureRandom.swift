internal import COpenSSL

/// Random values from OpenSSL's CSPRNG (`RAND_bytes`), for keys, nonces, salts, identifiers and codes. Draws of up
/// to 64 bytes come from the calling thread's reserve of OpenSSL's output (``RandomReserve``), larger ones straight
/// from `RAND_bytes`.
///
/// Fails closed: when `RAND_bytes` reports an error (its DRBG could not be seeded), every function throws
/// ``CryptoError/library(operation:detail:)`` and returns nothing; the buffer it was filling is discarded.
/// Throwing rather than trapping lets one request fail with `INTERNAL` while the rest of the server stays up.
public enum SecureRandom {
    /// `count` random bytes; `count` may be 0 but not negative.
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0 else { throw .invalidArgument("byte count \(count) is negative") }
        if count <= RandomReserve.largestDraw {
            var output = [UInt8](zeroes: count)
            try output.withUnsafeMutableBufferPointer { buffer throws(CryptoError) in
                try RandomReserve.fill(UnsafeMutableRawBufferPointer(buffer))
            }
            return output
        }
        var output = [UInt8](zeroes: count)
        var status: Int32 = 1
        output.withUnsafeMutableBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count, status == 1 {
                let chunk = min(buffer.count - offset, Int(Int32.max))
                status = RAND_bytes(buffer.baseAddress.map { $0 + offset }, Int32(chunk))
                offset += chunk
            }
        }
        guard status == 1 else { throw OpenSSLCall.failure("RAND_bytes") }
        return output
    }

    /// A random UUID (RFC 9562 version 4) in lowercase canonical form, e.g.
    /// `0b6a3e1c-8f2d-4c4a-9e1b-5d7f3a2c1e0f`: 122 random bits.
    public static func uuidV4() throws(CryptoError) -> String {
        var bytes = try bytes(count: 16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hexDigits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A 128-bit random identifier as 22 base64url characters (no padding), never starting with `-`: a command
    /// line would read such an id as an option (`tessera admin users update -eyn…`). Drawn again when it would
    /// (1 in 64), which leaves about 127.98 bits.
    public static func identifier() throws(CryptoError) -> String {
        while true {
            let id = try token(byteCount: 16)
            if !id.hasPrefix("-") { return id }
        }
    }

    /// `byteCount` random bytes as base64url without padding, e.g. 32 bytes for a 256-bit authorization code or
    /// refresh token. `byteCount` must be at least 16: anything shorter is too guessable to be a secret.
    public static func token(byteCount: Int = 32) throws(CryptoError) -> String {
        guard byteCount >= 16 else { throw .invalidArgument("token of \(byteCount) bytes is shorter than 16") }
        return Base64URL.encode(try bytes(count: byteCount))
    }

    /// `count` uniformly random decimal digits, e.g. a 6-digit SMS code; leading zeros are kept.
    ///
    /// Uses rejection sampling: bytes of 250 and above are discarded, so each digit is `byte % 10` of a byte
    /// uniform over 0..<250 and no digit is more likely than another (no modulo bias).
    public static func digits(count: Int) throws(CryptoError) -> String {
        guard count >= 1 else { throw .invalidArgument("digit count \(count) is less than 1") }
        var digits: [UInt8] = []
        digits.reserveCapacity(count)
        while digits.count < count {
            for byte in try bytes(count: count - digits.count + 8) where byte < 250 && digits.count < count {
                digits.append(UInt8(ascii: "0") + byte % 10)
            }
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
