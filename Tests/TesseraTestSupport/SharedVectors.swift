import FoundationEssentials

/// Loads the JSON test vectors of the shared folder: `$TESSERA_SHARED_DIR/spec/vectors`, else
/// `$SHARED/spec/vectors` (the Makefile exports SHARED), else `<repository root>/../shared/spec/vectors`. A missing
/// or unreadable file fails the test that asked for it.
public enum SharedVectors {
    /// A vector file that cannot be read or decoded.
    public struct Missing: Error, CustomStringConvertible {
        let path: String
        let reason: String
        public var description: String {
            "shared test vectors cannot be read at \(path) (\(reason)); "
                + "set TESSERA_SHARED_DIR or SHARED to the shared folder that holds spec/vectors"
        }
    }

    /// The folder of the vector files.
    public static var directory: String {
        let environment = ProcessInfo.processInfo.environment
        for variable in ["TESSERA_SHARED_DIR", "SHARED"] {
            if let shared = environment[variable], !shared.isEmpty { return shared + "/spec/vectors" }
        }
        // #filePath is <root>/Tests/TesseraTestSupport/SharedVectors.swift: three levels up is the root.
        var root = URL(filePath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.path(percentEncoded: false) + "../shared/spec/vectors"
    }

    /// Decodes the vector file `name` as `type`; ``Missing`` when it cannot.
    public static func load<Vectors: Decodable>(_ name: String, as type: Vectors.Type) throws -> Vectors {
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
