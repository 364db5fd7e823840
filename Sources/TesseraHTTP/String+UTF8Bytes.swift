#if canImport(Glibc)
import Glibc
#endif

/// Byte-wise checks of a string's UTF-8 that read the bytes in place: a native string's bytes are contiguous, and a
/// scan of them costs about a third of iterating `utf8` (a scratch program under callgrind, 43-byte strings). For the
/// checks on the token path; elsewhere `utf8` reads more plainly.
extension String {
    /// Whether every byte of the string's UTF-8 satisfies `predicate`. Inlinable, so that the predicate is inlined
    /// into the scan rather than called for each byte.
    @inlinable
    package func allUTF8Bytes(satisfy predicate: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.allSatisfy(predicate) } ?? utf8.allSatisfy(predicate)
    }

    /// Whether the two strings hold the same UTF-8 bytes: not Swift's `==`, which calls canonically equivalent
    /// spellings (a precomposed and a decomposed "é") equal.
    package func hasSameUTF8Bytes(as other: String) -> Bool {
        let count = utf8.count
        guard count == other.utf8.count else { return false }
        guard count > 0 else { return true }
        let inPlace = utf8.withContiguousStorageIfAvailable { bytes in
            other.utf8.withContiguousStorageIfAvailable { memcmp(bytes.baseAddress!, $0.baseAddress!, count) == 0 }
        }
        if let inPlace, let inPlace { return inPlace }
        return utf8.elementsEqual(other.utf8)
    }
}
