public import TesseraCrypto

/// The key ring that seals secrets at rest (signing keys, TOTP secrets).
public enum SecretsKeyRing {
    /// The key id of the development key.
    public static let developmentKeyID = "dev-insecure"

    /// A ring over `masterKey`; without one (development mode, API §1), over a fixed, public all-zero key, so
    /// development data is sealed in the same format but protected by nothing. Production runs must pass
    /// `--master-key-file`; the server warns at start when it does not.
    public static func make(masterKey: MasterKey?) throws -> KeyRing {
        if let masterKey { return try KeyRing(current: masterKey) }
        return try KeyRing(
            currentKeyID: developmentKeyID,
            keys: [developmentKeyID: try SymmetricKey(bytes: [UInt8](repeating: 0, count: SymmetricKey.byteCount))])
    }
}
