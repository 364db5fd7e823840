public import TesseraCrypto

/// The key ring that seals secrets at rest (signing keys, TOTP secrets).
public enum SecretsKeyRing {
    /// The key id of the development key.
    public static let developmentKeyID = "dev-insecure"

    /// A ring that seals with `masterKey` and still opens what the `previous` master keys sealed (a rotation,
    /// docs/operations.md); without a master key (development mode, API §1), over a fixed, public all-zero key, so
    /// development data is sealed in the same format but protected by nothing. Production runs must pass
    /// `--master-key-file`; the server warns at start when it does not.
    public static func make(masterKey: MasterKey?, previous: [MasterKey] = []) throws -> KeyRing {
        if let masterKey {
            if previous.contains(where: { $0.keyID == masterKey.keyID }) {
                throw KeyRingConfigurationError(
                    "a previous master key is the current one (\(masterKey.keyID)): give it once, as the current key")
            }
            return try KeyRing(current: masterKey, previous: previous)
        }
        guard previous.isEmpty else {
            throw KeyRingConfigurationError("previous master keys need a current one (--master-key-file)")
        }
        return try KeyRing(
            currentKeyID: developmentKeyID,
            keys: [developmentKeyID: try SymmetricKey(bytes: [UInt8](repeating: 0, count: SymmetricKey.byteCount))])
    }
}

/// Master keys that make no ring: a one-line explanation naming the option.
public struct KeyRingConfigurationError: Error, CustomStringConvertible, Equatable {
    /// The one-line explanation.
    public let description: String

    init(_ description: String) { self.description = description }
}
