#if canImport(Glibc)
import Glibc
#endif

/// Byte-wise checks of a string's UTF-8 that read the bytes in place (`withUTF8`): a scan of them costs about a third
/// of iterating `utf8` (a scratch program under callgrind, 43-byte strings). For the checks on the token path;
/// elsewhere `utf8` reads more plainly.
extension String {
    /// Whether every byte of the string's UTF-8 satisfies `predicate`. Inlinable, so that the predicate is inlined
    /// into the scan rather than called for each byte.
    @inlinable
    package func allUTF8Bytes(satisfy predicate: (UInt8) -> Bool) -> Bool {
        var text = self
        return text.withUTF8 { $0.allSatisfy(predicate) }
    }

    /// Whether the two strings hold the same UTF-8 bytes: not Swift's `==`, which calls canonically equivalent
    /// spellings (a precomposed and a decomposed "é") equal.
    package func hasSameUTF8Bytes(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var text = self
        var other = other
        return text.withUTF8 { bytes in
            other.withUTF8 { otherBytes in
                bytes.isEmpty || memcmp(bytes.baseAddress!, otherBytes.baseAddress!, bytes.count) == 0
            }
        }
    }
}
