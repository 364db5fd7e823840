import FoundationEssentials

/// Loads the JSON test vectors of the shared folder: `$TESSERA_SHARED_DIR/spec/vectors`, else
/// `$SHARED/spec/vectors` (the Makefile exports SHARED), else `<repository root>/../shared/spec/vectors`. A missing
/// or unreadable file fails the test that asked for it.
enum SharedVectors {
    struct Missing: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String {
            "shared test vectors cannot be read at \(path) (\(reason)); "
                + "set TESSERA_SHARED_DIR or SHARED to the shared folder that holds spec/vectors"
        }
    }

    static var directory: String {
        let environment = ProcessInfo.processInfo.environment
        for variable in ["TESSERA_SHARED_DIR", "SHARED"] {
            if let shared = environment[variable], !shared.isEmpty { return shared + "/spec/vectors" }
        }
        // #filePath is <root>/Tests/TesseraCryptoTests/SharedVectors.swift: three levels up is the root.
        var root = URL(filePath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.path(percentEncoded: false) + "../shared/spec/vectors"
    }

    static func load<Vectors: Decodable>(_ name: String, as type: Vectors.Type) throws -> Vectors {
        let path = directory + "/" + name
        let data: Data
        do { data = try Data(contentsOf: URL(filePath: path)) } catch {
            throw Missing(path: path, reason: "\(error)")
        }
        do { return try JSONDecoder().decode(Vectors.self, from: data) } catch {
            throw Missing(path: path, reason: "not the expected JSON: \(error)")
        }
    }
}

/// Bytes from a hexadecimal string, for typing in RFC test vectors.
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { index in
        UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) ?? 0
    }
}

/// The lowercase hexadecimal form of `bytes`.
func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
