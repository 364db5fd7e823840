/// Why a master key file (`--master-key-file`) could not be used. The description is one line naming the file,
/// fit to print before exiting.
public enum MasterKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or read; `reason` is the system's message.
    case unreadable(path: String, reason: String)
    /// The file is not a regular file (a directory, a device).
    case notARegularFile(path: String)
    /// The file does not hold exactly 32 bytes; `size` is what it holds.
    case wrongSize(path: String, size: Int)
    /// The key id could not be derived.
    case crypto(CryptoError)

    /// One line naming the file and the problem, never key material.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "master key file \(path): cannot read it: \(reason)"
        case .notARegularFile(let path):
            "master key file \(path): not a regular file"
        case .wrongSize(let path, let size):
            "master key file \(path): must hold exactly \(MasterKey.byteCount) bytes, found \(size)"
                + (size > MasterKey.byteCount ? " (raw bytes are expected, not hex or base64 text)" : "")
                + "; create one with: head -c 32 /dev/urandom > \(path)"
        case .crypto(let error):
            "master key: \(error.description)"
        }
    }
}
