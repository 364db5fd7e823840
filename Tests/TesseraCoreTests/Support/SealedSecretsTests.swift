import Synchronization
import TesseraCore
import TesseraCrypto
import TesseraPostgres
import Testing

/// ``SealedSecrets/reseal(_:in:keyRing:batchSize:)`` over a table kept in memory: what a master-key rotation's
/// `tessera reseal` does to each owner's rows.
@Suite struct SealedSecretsTests {
    let old = try! MasterKey(key: try! SymmetricKey(bytes: [UInt8](repeating: 1, count: 32)))
    let new = try! MasterKey(key: try! SymmetricKey(bytes: [UInt8](repeating: 2, count: 32)))

    @Test func everyEnvelopeOfAPreviousKeyIsSealedAgainUnderTheCurrentOneAndOpensToTheSameSecret() async throws {
        let before = try KeyRing(current: old)
        let rotated = try KeyRing(current: new, previous: [old])
        let table = MemoryTable()
        for index in 0..<7 {
            let key = "row-\(index)"
            // Two rows already under the new key (a server sealed them after the rotation began).
            let ring = index < 5 ? before : rotated
            table.rows[key] = try ring.seal(
                Array("secret \(index)".utf8), associatedData: table.associatedData(key: key))
        }
        #expect(try await SealedSecrets.reseal(table, in: NoDatabase(), keyRing: rotated, batchSize: 2) == 5)
        let afterRotation = try KeyRing(current: new)
        for index in 0..<7 {
            let key = "row-\(index)"
            let envelope = try #require(table.rows[key])
            #expect(try KeyRing.keyID(of: envelope) == new.keyID)
            #expect(
                try afterRotation.open(envelope, associatedData: table.associatedData(key: key))
                    == Array("secret \(index)".utf8))
        }
        // Every page was read: 7 rows in pages of 2.
        #expect(table.pagesRead == 4)
        #expect(try await SealedSecrets.reseal(table, in: NoDatabase(), keyRing: rotated, batchSize: 2) == 0)
    }

    @Test func aRowChangedMeanwhileIsLeftAsItsWriterSealedIt() async throws {
        let table = MemoryTable()
        table.rows["a"] = try KeyRing(current: old).seal([1, 2, 3], associatedData: table.associatedData(key: "a"))
        let newer = try KeyRing(current: new).seal([4, 5, 6], associatedData: table.associatedData(key: "a"))
        table.beforeReplace = { $0.rows["a"] = newer }
        #expect(
            try await SealedSecrets.reseal(table, in: NoDatabase(), keyRing: KeyRing(current: new, previous: [old]))
                == 0)
        #expect(table.rows["a"] == newer)
    }

    @Test func anEnvelopeOfAKeyNotGivenStopsTheRunNamingTheRowAndTheKey() async throws {
        let stranger = try MasterKey(key: try SymmetricKey(bytes: [UInt8](repeating: 3, count: 32)))
        let table = MemoryTable()
        table.rows["a"] = try KeyRing(current: old).seal([1], associatedData: table.associatedData(key: "a"))
        table.rows["b"] = try KeyRing(current: stranger).seal([2], associatedData: table.associatedData(key: "b"))
        table.rows["c"] = try KeyRing(current: old).seal([3], associatedData: table.associatedData(key: "c"))
        let error = await #expect(throws: ResealError.self) {
            try await SealedSecrets.reseal(table, in: NoDatabase(), keyRing: KeyRing(current: new, previous: [old]))
        }
        #expect(error?.description.contains("memory row 'b'") == true)
        #expect(error?.description.contains(stranger.keyID) == true)
        // What came before it is re-sealed and kept; what comes after is untouched.
        #expect(try KeyRing.keyID(of: try #require(table.rows["a"])) == new.keyID)
        #expect(try KeyRing.keyID(of: try #require(table.rows["c"])) == old.keyID)
    }

    @Test func anEnvelopeBoundToAnotherRowOrDamagedIsRefusedNotResealed() async throws {
        let table = MemoryTable()
        // Copied from row "b": it does not open for row "a".
        table.rows["a"] = try KeyRing(current: old).seal([1], associatedData: table.associatedData(key: "b"))
        let error = await #expect(throws: ResealError.self) {
            try await SealedSecrets.reseal(table, in: NoDatabase(), keyRing: KeyRing(current: new, previous: [old]))
        }
        #expect(error?.description.contains("does not open (master key \(old.keyID))") == true)
        table.rows["a"] = [9, 9]
        await #expect(throws: ResealError.self) {
            try await SealedSecrets.reseal(table, in: NoDatabase(), keyRing: KeyRing(current: new, previous: [old]))
        }
    }

    @Test func aRingNamesItsPreviousKeysOnlyBesideACurrentOneAndNeverTwice() throws {
        #expect(try SecretsKeyRing.make(masterKey: new, previous: [old]).keyIDs == [new.keyID, old.keyID].sorted())
        #expect(throws: KeyRingConfigurationError.self) { try SecretsKeyRing.make(masterKey: new, previous: [new]) }
        #expect(throws: KeyRingConfigurationError.self) { try SecretsKeyRing.make(masterKey: nil, previous: [old]) }
    }
}

/// A table of envelopes kept in memory, by key.
private final class MemoryTable: SealedSecretsTable, @unchecked Sendable {
    var rows: [String: [UInt8]] = [:]
    var pagesRead = 0
    var beforeReplace: (MemoryTable) -> Void = { _ in }

    var table: String { "memory" }

    func envelopes(_ db: any SQLRunner, after key: String?, limit: Int) async throws -> [SealedEnvelope] {
        pagesRead += 1
        return rows.keys.sorted().filter { row in key.map { row > $0 } ?? true }.prefix(limit).map {
            SealedEnvelope(key: $0, envelope: rows[$0]!)
        }
    }

    func replace(_ db: any SQLRunner, key: String, old: [UInt8], new: [UInt8]) async throws -> Bool {
        beforeReplace(self)
        guard rows[key] == old else { return false }
        rows[key] = new
        return true
    }

    func associatedData(key: String) -> [UInt8] { Array("memory:\(key)".utf8) }
}

/// No database: the table in memory never asks it anything.
private struct NoDatabase: SQLRunner {
    func query(_ sql: String, _ parameters: [any PostgresEncodable]) async throws(PostgresError) -> PostgresResult {
        throw PostgresError(.unavailable, message: "no database in this test")
    }
}
