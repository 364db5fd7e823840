import FoundationEssentials
public import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraPostgres

/// The queries on `factor_services`, the one owner of that table. Secrets are sealed under the master key, bound to
/// the factor id, and opened only here.
enum FactorServiceStore {
    private static let columns = """
        factor_id, endpoints::text, timeout_ms, allow_insecure_http, descriptor::text, sealed_secret, created_at, \
        updated_at
        """

    /// Every registered service, by id.
    static func all(_ db: some SQLRunner, keyRing: KeyRing) async throws -> [FactorServiceRecord] {
        let result = try await db.query("SELECT \(columns) FROM factor_services ORDER BY factor_id", [])
        return try result.rows.map { try record($0, keyRing: keyRing) }
    }

    /// The service `factorID`, or nil; with `forUpdate`, its row stays locked until the transaction ends.
    static func find(
        _ db: some SQLRunner, keyRing: KeyRing, factorID: String, forUpdate: Bool = false
    ) async throws -> FactorServiceRecord? {
        let result = try await db.query(
            "SELECT \(columns) FROM factor_services WHERE factor_id = $1\(forUpdate ? " FOR UPDATE" : "")", [factorID])
        return try result.rows.first.map { try record($0, keyRing: keyRing) }
    }

    /// Writes a new registration; false when the id is taken.
    static func insert(_ db: some SQLRunner, keyRing: KeyRing, _ record: FactorServiceRecord) async throws -> Bool {
        let inserted = try await db.query(
            """
            INSERT INTO factor_services (factor_id, endpoints, timeout_ms, allow_insecure_http, descriptor,
                sealed_secret, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (factor_id) DO NOTHING RETURNING 1
            """, try values(record, keyRing: keyRing))
        return inserted.rowCount == 1
    }

    /// Replaces a registration's settings, descriptor and secret.
    static func update(_ db: some SQLRunner, keyRing: KeyRing, _ record: FactorServiceRecord) async throws {
        try await db.query(
            """
            UPDATE factor_services SET endpoints = $2, timeout_ms = $3, allow_insecure_http = $4, descriptor = $5,
                sealed_secret = $6, updated_at = $8
            WHERE factor_id = $1
            """, try values(record, keyRing: keyRing))
    }

    /// Removes a registration; false when there is none.
    static func delete(_ db: some SQLRunner, factorID: String) async throws -> Bool {
        try await db.query("DELETE FROM factor_services WHERE factor_id = $1 RETURNING 1", [factorID]).rowCount == 1
    }

    private static func values(_ record: FactorServiceRecord, keyRing: KeyRing) throws -> [any PostgresEncodable] {
        [
            record.factorID, PostgresJSONB(JSONValue.array(record.endpoints.map { .string($0) }).description),
            record.timeoutMilliseconds, record.allowInsecureHttp,
            PostgresJSONB(JSONValue.object(record.descriptor).description),
            try keyRing.seal(record.secret, associatedData: associatedData(record.factorID)), record.createdAt,
            record.updatedAt,
        ]
    }

    private static func record(_ row: PostgresRow, keyRing: KeyRing) throws -> FactorServiceRecord {
        let id = try row.decode(String.self, at: 0)
        let endpoints = try JSONValue(parsing: try row.decode(String.self, at: 1)).arrayValue ?? []
        return FactorServiceRecord(
            factorID: id, endpoints: endpoints.compactMap(\.stringValue),
            timeoutMilliseconds: try row.decode(Int.self, at: 2),
            allowInsecureHttp: try row.decode(Bool.self, at: 3),
            descriptor: try JSONValue(parsing: try row.decode(String.self, at: 4)).objectValue ?? [:],
            secret: try keyRing.open(try row.decode([UInt8].self, at: 5), associatedData: associatedData(id)),
            createdAt: try row.decode(Date.self, at: 6), updatedAt: try row.decode(Date.self, at: 7))
    }

    fileprivate static func associatedData(_ factorID: String) -> [UInt8] {
        Array("factor-service:\(factorID)".utf8)
    }
}

/// The services' sealed secrets, as a master-key rotation re-seals them (`tessera reseal`).
public struct FactorServiceSecrets: SealedSecretsTable {
    /// The table's secrets.
    public init() {}

    public var table: String { "factor_services" }

    public func envelopes(_ db: any SQLRunner, after key: String?, limit: Int) async throws -> [SealedEnvelope] {
        let result = try await db.query(
            """
            SELECT factor_id, sealed_secret FROM factor_services WHERE factor_id > coalesce($1::text, '')
            ORDER BY factor_id LIMIT $2
            """, [key, limit])
        return try SealedEnvelope.rows(of: result)
    }

    public func replace(_ db: any SQLRunner, key: String, old: [UInt8], new: [UInt8]) async throws -> Bool {
        try await db.query(
            "UPDATE factor_services SET sealed_secret = $3 WHERE factor_id = $1 AND sealed_secret = $2",
            [key, old, new]
        ).affectedRows == 1
    }

    public func associatedData(key: String) -> [UInt8] { FactorServiceStore.associatedData(key) }
}
