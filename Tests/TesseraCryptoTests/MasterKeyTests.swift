import FoundationEssentials
import TesseraCrypto
import Testing

@Suite("MasterKey")
struct MasterKeyTests {
    /// A fresh directory under the system's temporary directory.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appending(path: "tessera-crypto-tests-\(try SecureRandom.identifier())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func write(_ bytes: [UInt8], named name: String, in directory: URL) throws -> String {
        let file = directory.appending(path: name)
        try Data(bytes).write(to: file)
        return file.path(percentEncoded: false)
    }

    @Test func loadsExactly32BytesWithAStableKeyID() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = try SecureRandom.bytes(count: 32)
        let path = try Self.write(bytes, named: "master.key", in: directory)
        let key = try MasterKey.load(fromFile: path)
        #expect(key.key.rawBytes == bytes)
        #expect(key.keyID.hasPrefix("mk-"))
        #expect(key.keyID.count == 14)
        #expect(try MasterKey.load(fromFile: path).keyID == key.keyID)
        #expect(try MasterKey(key: SymmetricKey.generate()).keyID != key.keyID)
        #expect(!"\(key)".contains(Base64URL.encode(bytes)))
    }

    @Test(arguments: [0, 1, 31, 33, 44, 64, 65])
    func refusesOtherSizesNamingFileAndSize(size: Int) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try Self.write(Array(repeating: 0x41, count: size), named: "bad.key", in: directory)
        let error = #expect(throws: MasterKeyError.wrongSize(path: path, size: size)) {
            try MasterKey.load(fromFile: path)
        }
        let description = error.map(String.init(describing:)) ?? ""
        #expect(description.contains(path))
        #expect(description.contains("found \(size)"))
        #expect(!description.contains("\n"))
    }

    @Test func refusesMissingFilesAndDirectories() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appending(path: "absent.key").path(percentEncoded: false)
        let error = #expect(throws: MasterKeyError.self) { try MasterKey.load(fromFile: missing) }
        #expect(error == .unreadable(path: missing, reason: "No such file or directory"))
        #expect(error.map { "\($0)" }?.contains(missing) == true)
        let directoryPath = directory.path(percentEncoded: false)
        #expect(throws: MasterKeyError.notARegularFile(path: directoryPath)) {
            try MasterKey.load(fromFile: directoryPath)
        }
    }
}
