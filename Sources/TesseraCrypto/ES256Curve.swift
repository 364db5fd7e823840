internal import COpenSSL

/// Facts about the P-256 curve that ES256 signatures are checked against (SEC 2, FIPS 186-4 D.1.2.3).
enum ES256Curve {
    /// Byte length of a coordinate, of `r` and of `s`.
    static let scalarByteCount = 32
    /// OpenSSL's name of the group.
    static let groupName = "prime256v1"

    /// The group order n, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// ⌊n / 2⌋, big-endian: an `s` above it is "high" and has the twin `n − s` that verifies too.
    static let halfOrder: [UInt8] = [
        0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xDE, 0x73, 0x7D, 0x56, 0xD3, 0x8B, 0xCF, 0x42, 0x79, 0xDC, 0xE5, 0x61, 0x7E, 0x31, 0x92, 0xA8,
    ]

    /// Whether the big-endian 32-byte `lhs` is greater than `rhs`. Signature values are public, so this need not
    /// be constant-time.
    static func isGreater(_ lhs: ArraySlice<UInt8>, than rhs: [UInt8]) -> Bool {
        for (left, right) in zip(lhs, rhs) where left != right { return left > right }
        return false
    }

    /// Whether a big-endian 32-byte scalar is in 1..<n, the range of valid `r` and `s`.
    static func isValidScalar(_ scalar: ArraySlice<UInt8>) -> Bool {
        guard scalar.contains(where: { $0 != 0 }) else { return false }
        for (byte, orderByte) in zip(scalar, order) where byte != orderByte { return byte < orderByte }
        return false
    }

    /// Replaces a big-endian 32-byte `s` in 1..<n by `n − s`, its twin: the other `s` that verifies with the same
    /// `r`. A subtraction with borrow, byte by byte; signature values are public, so it need not be constant-time.
    static func replaceWithTwin(_ scalar: inout ArraySlice<UInt8>) {
        var borrow = 0
        for offset in order.indices.reversed() {
            let index = scalar.startIndex + offset
            let difference = Int(order[offset]) - Int(scalar[index]) - borrow
            borrow = difference < 0 ? 1 : 0
            scalar[index] = UInt8(difference + 256 * borrow)
        }
    }

    /// A non-negative BIGNUM below 2^256 as 32 big-endian bytes.
    static func bytes(of number: OpaquePointer) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](zeroes: scalarByteCount)
        guard BN_bn2binpad(number, &output, Int32(scalarByteCount)) == Int32(scalarByteCount) else {
            throw OpenSSLCall.failure("BN_bn2binpad")
        }
        return output
    }
}
