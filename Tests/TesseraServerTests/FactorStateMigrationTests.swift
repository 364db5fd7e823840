import Foundation
import TesseraCore
import TesseraCrypto
import TesseraPostgres
import TesseraServer
import TesseraTestSupport
import Testing

/// Migrations `multifactor` 2, `totp` 2 and `phone` 2 move what the TOTP and SMS factors kept in tables of their own
/// into the router's `mfa_enrollments`, in a database that already has enrolments: nothing is lost.
@Suite struct FactorStateMigrationTests {
    @Test func enrolmentsMadeBeforeTheFactorsBecameStatelessKeepTheirSecretStepAndNumber() throws {
        let url = try TestDatabaseURL.required()
        let name = "tessera_migration_\(UInt32.random(in: 0 ... .max))"
        let scratch = try #require(Self.url(url, database: name))
        try Self.run(url, "CREATE DATABASE \(name)")
        defer { try? Self.run(url, "DROP DATABASE \(name)") }

        let all = SchemaMigrations.all
        let moved: Set<String> = ["multifactor 2", "totp 2", "phone 2"]
        let before = all.filter { !moved.contains("\($0.module) \($0.version)") }
        // The schema as the previous release left it: everything but the three migrations (which come after all
        // of their modules' others, and before nothing that depends on them).
        _ = try Migrator.migrate(
            url: scratch, migrations: before.filter { ["core", "multifactor", "totp", "phone"].contains($0.module) })
        let sealed = [UInt8](repeating: 7, count: 40)
        try Self.run(
            scratch,
            """
            INSERT INTO users (user_id, email, email_verified, created_at, tokens_valid_after)
                VALUES ('u1', 'a@example.com', true, now(), now());
            INSERT INTO mfa_enrollments (enrollment_id, user_id, factor, enrolled_at, public_info)
                VALUES ('e-totp', 'u1', 'totp', now(), '{"totpInfo": {}}'),
                       ('e-phone', 'u1', 'phone', now(), '{"phoneInfo": "+15555550100"}');
            INSERT INTO totp_enrollments (enrollment_id, sealed_secret, last_step)
                VALUES ('e-totp', '\\x\(sealed.map { String($0, radix: 16, uppercase: false).leftPadded }.joined())', 58000000);
            INSERT INTO phone_enrollments (enrollment_id, user_id, phone_number) VALUES ('e-phone', 'u1', '+15555550100');
            """)
        _ = try Migrator.migrate(url: scratch, migrations: all)
        let rows = try Self.rows(
            scratch,
            """
            SELECT enrollment_id, encode(sealed_state, 'hex'), replay_mark, unique_key, masked_info::text
            FROM mfa_enrollments ORDER BY enrollment_id
            """)
        #expect(
            rows == [
                ["e-phone", "", "", "+15555550100", #"{"phoneInfo": "+*******0100"}"#],
                ["e-totp", String(repeating: "07", count: 40), "58000000", "", ""],
            ])
        #expect(
            try Self.rows(
                scratch, "SELECT to_regclass('totp_enrollments')::text, to_regclass('phone_enrollments')::text") == [
                    ["", ""]
                ])
    }

    /// `url` with its database name replaced.
    static func url(_ url: String, database: String) -> String? {
        guard let query = url.firstIndex(of: "?") ?? Optional(url.endIndex),
            let slash = url[..<query].lastIndex(of: "/")
        else { return nil }
        return String(url[...slash]) + database + String(url[query...])
    }

    static func run(_ url: String, _ sql: String) throws {
        _ = try rows(url, sql)
    }

    /// The rows of `sql` as text (NULL as ""), through psql.
    static func rows(_ url: String, _ sql: String) throws -> [[String]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", url, "-c", sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PSQLFailed(sql: sql) }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    struct PSQLFailed: Error {
        let sql: String
    }
}

extension String {
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
