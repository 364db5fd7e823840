import FactorServices
import Foundation
import MultiFactor
import TesseraCore
import TesseraCrypto
import TesseraLoop
import TesseraPostgres
import TesseraServer
import TesseraTestSupport
import Testing

/// The owners' ``SealedSecretsTable``s, which `tessera reseal` runs, over a database of their own (a re-seal
/// touches every row of its tables, and the other tests' signing keys must stay under the suite's master key).
@Suite struct SealedSecretsTablesTests {
    @Test func eachOwnerResealsItsRowsUnderTheCurrentKeyBoundToTheirRows() async throws {
        let url = try TestDatabaseURL.required()
        let name = "tessera_reseal_\(UInt32.random(in: 0 ... .max))"
        let scratch = try #require(FactorStateMigrationTests.url(url, database: name))
        try FactorStateMigrationTests.run(url, "CREATE DATABASE \(name)")
        defer { try? FactorStateMigrationTests.run(url, "DROP DATABASE \(name) WITH (FORCE)") }
        _ = try Migrator.migrate(url: scratch, migrations: SchemaMigrations.all)

        let old = try MasterKey(key: try SymmetricKey(bytes: try SecureRandom.bytes(count: 32)))
        let new = try MasterKey(key: try SymmetricKey(bytes: try SecureRandom.bytes(count: 32)))
        let before = try KeyRing(current: old)
        func hex(_ bytes: [UInt8]) -> String { "'\\x" + bytes.map { String(format: "%02x", $0) }.joined() + "'" }
        let secrets: [(table: String, key: String, associatedData: String)] = [
            ("signing_keys", "kid-1", "kid-1"), ("signing_keys", "kid-2", "kid-2"),
            ("mfa_enrollments", "e-1", "e-1"), ("factor_services", "fs-1", "factor-service:fs-1"),
        ]
        func sealed(_ index: Int) throws -> [UInt8] {
            try before.seal(Array("secret \(index)".utf8), associatedData: Array(secrets[index].associatedData.utf8))
        }
        try FactorStateMigrationTests.run(
            scratch,
            """
            INSERT INTO signing_keys (kid, sealed_private_key, public_jwk, created_at, retired_at)
                VALUES ('kid-1', \(hex(try sealed(0))), '{}', now(), now()), ('kid-2', \(hex(try sealed(1))), '{}', now(), NULL);
            INSERT INTO users (user_id, created_at, tokens_valid_after) VALUES ('u1', now(), now());
            INSERT INTO mfa_enrollments (enrollment_id, user_id, factor, enrolled_at, sealed_state)
                VALUES ('e-1', 'u1', 'totp', now(), \(hex(try sealed(2)))), ('e-2', 'u1', 'phone', now(), NULL);
            INSERT INTO factor_services (factor_id, endpoints, timeout_ms, descriptor, sealed_secret, created_at, updated_at)
                VALUES ('fs-1', '[]', 1000, '{}', \(hex(try sealed(3))), now(), now());
            """)

        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let database = PostgresClient(configuration: PostgresConfiguration(url: scratch), group: group)
        try await database.start(timeout: .seconds(5))
        let tables: [any SealedSecretsTable] = [SigningKeySecrets(), EnrollmentSecrets(), FactorServiceSecrets()]
        let rotated = try KeyRing(current: new, previous: [old])
        var counts: [String: Int] = [:]
        for table in tables {
            counts[table.table] = try await database.withPool { pool in
                try await SealedSecrets.reseal(table, in: pool, keyRing: rotated, batchSize: 1)
            }
        }
        #expect(counts == ["signing_keys": 2, "mfa_enrollments": 1, "factor_services": 1])
        for table in tables {
            let again = try await database.withPool { pool in
                try await SealedSecrets.reseal(table, in: pool, keyRing: rotated)
            }
            #expect(again == 0, "\(table.table)")
        }
        await database.shutdown()

        let stored = try FactorStateMigrationTests.rows(
            scratch,
            """
            SELECT 'signing_keys', kid, encode(sealed_private_key, 'hex') FROM signing_keys
            UNION ALL SELECT 'mfa_enrollments', enrollment_id, coalesce(encode(sealed_state, 'hex'), '') FROM mfa_enrollments
            UNION ALL SELECT 'factor_services', factor_id, encode(sealed_secret, 'hex') FROM factor_services
            """)
        let afterRotation = try KeyRing(current: new)
        for (index, secret) in secrets.enumerated() {
            let row = try #require(stored.first { $0[0] == secret.table && $0[1] == secret.key })
            let envelope = try #require(Self.bytes(hex: row[2]))
            #expect(try KeyRing.keyID(of: envelope) == new.keyID)
            #expect(
                try afterRotation.open(envelope, associatedData: Array(secret.associatedData.utf8))
                    == Array("secret \(index)".utf8))
        }
        #expect(stored.contains(["mfa_enrollments", "e-2", ""]))
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        return stride(from: 0, to: digits.count, by: 2).compactMap {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
    }
}
