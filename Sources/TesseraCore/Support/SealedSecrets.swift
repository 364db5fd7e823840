public import TesseraCrypto
public import TesseraPostgres

/// One table's secrets sealed under the master key ring, as its owner reads and replaces them: what a master-key
/// rotation re-seals (``SealedSecrets/reseal(_:in:keyRing:batchSize:)``, `tessera reseal`, docs/operations.md). Only
/// long-lived secrets need it; those that expire within the hour (login flows, factor sessions) are left to expire.
public protocol SealedSecretsTable: Sendable {
    /// The table, as `tessera reseal` reports it.
    var table: String { get }
    /// Up to `limit` of the table's envelopes, in the order of their rows' keys, after the row `key` (from the
    /// first row when nil).
    func envelopes(_ db: any SQLRunner, after key: String?, limit: Int) async throws -> [SealedEnvelope]
    /// Replaces the envelope of row `key` with `new` when it still is `old` (a server may have sealed it again
    /// meanwhile); whether it did.
    func replace(_ db: any SQLRunner, key: String, old: [UInt8], new: [UInt8]) async throws -> Bool
    /// The associated data that binds row `key`'s envelope to its row.
    func associatedData(key: String) -> [UInt8]
}

/// An envelope of a ``SealedSecretsTable`` and the key of its row.
public struct SealedEnvelope: Sendable {
    /// The row's key.
    public let key: String
    /// The envelope (``KeyRing/seal(_:associatedData:)``).
    public let envelope: [UInt8]

    /// An envelope of row `key`.
    public init(key: String, envelope: [UInt8]) {
        self.key = key
        self.envelope = envelope
    }

    /// The envelopes of `result`, whose rows are a key (text) and an envelope (bytea), in that order.
    public static func rows(of result: PostgresResult) throws -> [SealedEnvelope] {
        try result.rows.map {
            SealedEnvelope(key: try $0.decode(String.self, at: 0), envelope: try $0.decode([UInt8].self, at: 1))
        }
    }
}

/// Re-sealing secrets at rest under the current master key.
public enum SealedSecrets {
    /// Opens every envelope of `table` sealed under a key other than `keyRing`'s current one and seals its content
    /// again under the current key, row by row (each row its own statement, so servers keep running); returns how
    /// many it re-sealed. Idempotent: a second run re-seals nothing. Stops at the first envelope the ring cannot
    /// open (``ResealError``), having kept what it re-sealed before it.
    public static func reseal(
        _ table: some SealedSecretsTable, in db: any SQLRunner, keyRing: KeyRing, batchSize: Int = 500
    ) async throws -> Int {
        var resealed = 0
        var after: String?
        while true {
            let page = try await table.envelopes(db, after: after, limit: batchSize)
            for row in page where try Self.needsResealing(row, of: table, keyRing: keyRing) {
                let associatedData = table.associatedData(key: row.key)
                let plaintext: [UInt8]
                do {
                    plaintext = try keyRing.open(row.envelope, associatedData: associatedData)
                } catch {
                    throw ResealError(table: table.table, key: row.key, envelope: row.envelope, reason: error)
                }
                let sealed = try keyRing.seal(plaintext, associatedData: associatedData)
                if try await table.replace(db, key: row.key, old: row.envelope, new: sealed) { resealed += 1 }
            }
            guard page.count == batchSize, let last = page.last else { return resealed }
            after = last.key
        }
    }

    private static func needsResealing(
        _ row: SealedEnvelope, of table: some SealedSecretsTable, keyRing: KeyRing
    ) throws -> Bool {
        do {
            return try keyRing.needsResealing(row.envelope)
        } catch {
            throw ResealError(table: table.table, key: row.key, envelope: row.envelope, reason: error)
        }
    }
}

/// An envelope that the ring cannot open: sealed under a master key not given, or damaged.
public struct ResealError: Error, CustomStringConvertible {
    /// The table and the row's key.
    public let table: String, key: String
    /// Why: the key the envelope names and what opening it said.
    public let reason: String

    init(table: String, key: String, envelope: [UInt8], reason: AESGCMError) {
        self.table = table
        self.key = key
        switch reason {
        case .unknownKeyID(let keyID):
            self.reason =
                "it is sealed under master key \(keyID), which is neither the current nor a previous key given"
        default:
            let keyID = (try? KeyRing.keyID(of: envelope)).map { " (master key \($0))" } ?? ""
            self.reason = "it does not open\(keyID): \(reason)"
        }
    }

    public var description: String { "\(table) row '\(key)' cannot be re-sealed: \(reason)" }
}
