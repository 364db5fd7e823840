internal import COpenSSL

/// The hash functions this module uses, fetched from OpenSSL's default provider once per process.
///
/// OpenSSL 3 looks an algorithm up by name on every implicit use (`EVP_sha256()`), which takes a lock; fetching
/// once keeps the token endpoint's SHA-256 and ES256 off that path. Fetched `EVP_MD` objects are immutable and
/// reference counted, so sharing them between threads is safe.
enum MessageDigest: Sendable {
    case sha1
    case sha256
    case sha512

    /// The algorithm's name as OpenSSL fetches it.
    var name: String {
        switch self {
        case .sha1: "SHA1"
        case .sha256: "SHA256"
        case .sha512: "SHA512"
        }
    }

    /// The length of the algorithm's output in bytes.
    var outputByteCount: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }

    /// The fetched `EVP_MD`, or an error when the provider does not offer the algorithm.
    func fetched() throws(CryptoError) -> OpaquePointer {
        let fetched: FetchedAlgorithm
        switch self {
        case .sha1: fetched = FetchedAlgorithm.sha1
        case .sha256: fetched = FetchedAlgorithm.sha256
        case .sha512: fetched = FetchedAlgorithm.sha512
        }
        guard let pointer = fetched.pointer else {
            throw .library(operation: "EVP_MD_fetch(\(name))", detail: "algorithm unavailable")
        }
        return pointer
    }

    /// The digest of `bytes`.
    func hash(_ bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        let algorithm = try fetched()
        guard let output = bytes.withUnsafeBytes({ digest(of: $0, with: algorithm) }) else { throw failure }
        return output
    }

    /// The digest of the UTF-8 bytes of `text`, read in place.
    func hash(_ text: String) throws(CryptoError) -> [UInt8] {
        let algorithm = try fetched()
        var text = text
        guard let output = text.withUTF8({ digest(of: UnsafeRawBufferPointer($0), with: algorithm) }) else {
            throw failure
        }
        return output
    }

    /// The digest of `input`, or nil when OpenSSL fails. Computed in the calling thread's context, set up again for
    /// each digest: `EVP_Digest` made and freed a context every time (an allocation and about 470 instructions
    /// of a SHA-256's 3 400 for a token's length).
    private func digest(of input: UnsafeRawBufferPointer, with algorithm: OpaquePointer) -> [UInt8]? {
        guard let context = Self.contexts.current(making: { EVP_MD_CTX_new().map(UnsafeMutableRawPointer.init) })
        else { return nil }
        let digestContext = OpaquePointer(context)
        var output = [UInt8](zeroes: outputByteCount)
        var length: UInt32 = 0
        guard EVP_DigestInit_ex2(digestContext, algorithm, nil) == 1,
            EVP_DigestUpdate(digestContext, input.baseAddress, input.count) == 1,
            EVP_DigestFinal_ex(digestContext, &output, &length) == 1
        else { return nil }
        return Int(length) == outputByteCount ? output : nil
    }

    /// Each thread's `EVP_MD_CTX`, freed when the thread ends.
    private static let contexts = PerThreadPointer { context in
        EVP_MD_CTX_free(context.map(OpaquePointer.init))
    }

    private var failure: CryptoError { OpenSSLCall.failure("EVP_DigestInit_ex2/Update/Final_ex(\(name))") }
}
