import FoundationEssentials

/// The master key file of `--master-key-file`: exactly 32 bytes that encrypt secrets at rest.
public enum MasterKeyFile {
    /// A master key file that cannot be used, with a one-line reason.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// The key's length in bytes (AES-256).
    public static let keyLength = 32

    /// Reads the key; throws when the file is missing, unreadable, or not exactly 32 bytes long.
    public static func load(_ path: String) throws(Invalid) -> [UInt8] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(filePath: path))
        } catch {
            throw Invalid(description: "--master-key-file \(path) cannot be read")
        }
        guard data.count == keyLength else {
            throw Invalid(
                description: "--master-key-file \(path) must hold exactly \(keyLength) bytes, it holds \(data.count)")
        }
        return Array(data)
    }

    /// Checks the file when one is configured.
    public static func validate(_ path: String?) throws(Invalid) {
        if let path { _ = try load(path) }
    }
}
