import FoundationEssentials
import Testing

/// The database tests run against: `TESSERA_TEST_DATABASE_URL`, which `make test` sets to the dev cluster's
/// `tessera_test`.
public enum TestDatabaseURL {
    /// The URL; cancels the running test (reported as skipped, saying why) when none is configured, so a run
    /// without a database is a run of the tests that need none, not 200 failures.
    public static func required() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["TESSERA_TEST_DATABASE_URL"], !url.isEmpty else {
            try Test.cancel("TESSERA_TEST_DATABASE_URL is not set: run the tests with `make test`")
        }
        return url
    }
}
