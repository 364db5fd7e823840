#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The key that encrypts secrets at rest (`--master-key-file`): exactly 32 raw bytes, and an id derived from
/// them that names the key in ``KeyRing`` envelopes.
public struct MasterKey: Sendable, CustomStringConvertible {
    /// The length of a master key in bytes.
    public static let byteCount = 32

    /// The AES-256 key.
    public let key: SymmetricKey
    /// `mk-` and 11 base64url characters: the first 64 bits of HMAC-SHA-256(key, "tessera master key id v1").
    /// It identifies the key in envelopes and logs without revealing anything usable about it, and the same file
    /// always yields the same id, so operators do not have to name keys.
    public let keyID: String

    /// A master key from a ``SymmetricKey``.
    public init(key: SymmetricKey) throws(MasterKeyError) {
        let code: [UInt8]
        do {
            code = try HMAC.authenticationCode(for: "tessera master key id v1", key: key.bytes, algorithm: .sha256)
        } catch {
            throw .crypto(error)
        }
        self.key = key
        self.keyID = "mk-" + Base64URL.encode(Array(code.prefix(8)))
    }

    /// Reads the master key from `path`, which must be a regular file holding exactly 32 bytes; anything else is a
    /// ``MasterKeyError`` whose description names the file and the size found.
    public static func load(fromFile path: String) throws(MasterKeyError) -> MasterKey {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: Self.systemMessage()) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(path: path, reason: Self.systemMessage()) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile(path: path) }
        guard Int(status.st_size) == byteCount else { throw .wrongSize(path: path, size: Int(status.st_size)) }
        // Read one byte more than needed, so a file that grew after fstat is still caught.
        var buffer = [UInt8](repeating: 0, count: byteCount + 1)
        var total = 0
        while total < buffer.count {
            let count = buffer.withUnsafeMutableBytes { bytes in
                read(descriptor, bytes.baseAddress.map { $0 + total }, bytes.count - total)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .unreadable(path: path, reason: Self.systemMessage()) }
            if count == 0 { break }
            total += count
        }
        guard total == byteCount else { throw .wrongSize(path: path, size: total) }
        let key: SymmetricKey
        do { key = try SymmetricKey(bytes: Array(buffer.prefix(byteCount))) } catch {
            throw .wrongSize(path: path, size: total)
        }
        for index in buffer.indices { buffer[index] = 0 }
        return try MasterKey(key: key)
    }

    /// `MasterKey(<keyID>)`: never the material.
    public var description: String { "MasterKey(\(keyID))" }

    private static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}
