import FoundationEssentials
import Testing
import TesseraServer

@Suite struct MasterKeyFileTests {
    private func write(_ bytes: Int) throws -> String {
        let path = "/tmp/tessera-master-key-\(UInt64.random(in: 0 ... .max))"
        try Data(repeating: 7, count: bytes).write(to: URL(filePath: path))
        return path
    }

    @Test func exactlyThirtyTwoBytesLoad() throws {
        let path = try write(32)
        #expect(try MasterKeyFile.load(path) == Array(repeating: 7, count: 32))
    }

    @Test(arguments: [0, 31, 33, 64])
    func anyOtherLengthIsRefused(length: Int) throws {
        let path = try write(length)
        #expect {
            try MasterKeyFile.load(path)
        } throws: { error in
            (error as? MasterKeyFile.Invalid)?.description.contains("exactly 32 bytes, it holds \(length)") == true
        }
    }

    @Test func aMissingFileIsRefused() {
        #expect(throws: MasterKeyFile.Invalid.self) { try MasterKeyFile.load("/nonexistent/master.key") }
    }
}
