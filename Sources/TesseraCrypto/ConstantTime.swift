internal import COpenSSL

/// Comparisons of secrets whose running time does not depend on where the inputs differ (`CRYPTO_memcmp`).
///
/// DESIGN §4: every comparison of a secret is constant-time. The length is not secret: inputs of different
/// lengths are unequal at once, which reveals only the length.
public enum ConstantTime {
    /// Whether `lhs` and `rhs` hold the same bytes. Two empty inputs are equal.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }

    /// Whether the UTF-8 bytes of `lhs` and `rhs` are the same; no Unicode normalization is applied.
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }
}
