internal import COpenSSL

/// An OpenSSL algorithm object fetched once and kept for the life of the process.
///
/// Fetched `EVP_MD` and `EVP_CIPHER` objects are immutable and reference counted; OpenSSL documents them as safe
/// to use from many threads at once, hence `@unchecked Sendable`.
final class FetchedAlgorithm: @unchecked Sendable {
    /// The fetched object, or nil when the provider refused (every use then fails closed).
    let pointer: OpaquePointer?

    private init(pointer: OpaquePointer?) {
        self.pointer = pointer
    }

    static let sha1 = FetchedAlgorithm(pointer: EVP_MD_fetch(nil, "SHA1", nil))
    static let sha256 = FetchedAlgorithm(pointer: EVP_MD_fetch(nil, "SHA256", nil))
    static let sha512 = FetchedAlgorithm(pointer: EVP_MD_fetch(nil, "SHA512", nil))
    static let aes256GCM = FetchedAlgorithm(pointer: EVP_CIPHER_fetch(nil, "AES-256-GCM", nil))
}
