import FoundationEssentials
import Testing

@testable import TesseraPostgres

struct PostgresTimestampTests {
    @Test(arguments: [
        (0.0, "1970-01-01 00:00:00.000000+00"),
        (1_795_000_000.123456, "2026-11-18 11:06:40.123456+00"),
        (-0.000001, "1969-12-31 23:59:59.999999+00"),
        (-62_135_596_800.0, "0001-01-01 00:00:00.000000+00"),
        (253_402_300_799.5, "9999-12-31 23:59:59.500000+00"),
    ])
    func datesAreSentAsUTCTextWithMicroseconds(seconds: Double, text: String) throws {
        let date = Date(timeIntervalSince1970: seconds)
        let bytes = PostgresTimestamp.bytes(of: date)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
        let parsed = try #require(bytes.withUnsafeBufferPointer(PostgresTimestamp.parse))
        #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    /// A date no timestamp holds fails its statement with PostgreSQL's error; converting it to microseconds trapped.
    @Test func aDateBeyondEveryTimestampFailsItsStatementAndStopsNothing() async throws {
        for seconds in [1e13, -1e300, .infinity, .nan] {
            let bytes = PostgresTimestamp.bytes(of: Date(timeIntervalSince1970: seconds))
            #expect(String(decoding: bytes, as: UTF8.self) == PostgresTimestamp.outOfRange)
            #expect(bytes.withUnsafeBufferPointer(PostgresTimestamp.parse) == nil)
        }
        try await TestDatabase.withClient(loops: 1, connectionsPerLoop: 1) { client, _ in
            let failure = await #expect(throws: PostgresError.self) {
                try await client.withPool { pool in
                    try await pool.query("SELECT $1::timestamptz", [Date(timeIntervalSince1970: 1e13)])
                }
            }
            #expect(failure?.isTemporary == false)
            // The session is fine afterwards.
            let now = try await client.withPool { pool in try await pool.query("SELECT 1") }
            #expect(now.rowCount == 1)
        }
    }
}
