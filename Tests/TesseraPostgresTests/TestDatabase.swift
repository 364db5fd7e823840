import FoundationEssentials
import TesseraLoop
import Testing

@testable import TesseraPostgres

/// The database the tests use: `TESSERA_TEST_DATABASE_URL`, which `make test` sets to a private cluster.
enum TestDatabase {
    /// The URL; cancels the running test (reported as skipped, saying why) when none is configured.
    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["TESSERA_TEST_DATABASE_URL"], !url.isEmpty else {
            try Test.cancel("TESSERA_TEST_DATABASE_URL is not set: run the tests with `make test`")
        }
        return url
    }

    /// A table name no other test uses.
    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)_\(UInt32.random(in: 0 ... .max))"
    }

    /// Runs `body` with a started client over a fresh group; shuts both down afterwards.
    static func withClient<T>(
        loops: Int = 2, connectionsPerLoop: Int = 2, statementTimeout: Duration = .seconds(5),
        applicationName: String? = nil, urlParameter: String? = nil,
        _ body: (PostgresClient, EventLoopGroup) async throws -> T
    ) async throws -> T {
        let group = try EventLoopGroup(loopCount: loops)
        var target = try url()
        if let applicationName { target += (target.contains("?") ? "&" : "?") + "application_name=\(applicationName)" }
        if let urlParameter { target += (target.contains("?") ? "&" : "?") + urlParameter }
        let configuration = PostgresConfiguration(
            url: target, connectionsPerLoop: connectionsPerLoop, statementTimeout: statementTimeout,
            initialBackoff: .milliseconds(20), maximumBackoff: .milliseconds(200))
        let client = PostgresClient(configuration: configuration, group: group)
        defer { group.shutdown() }
        return try await client.shuttingDown {
            try await client.start(timeout: .seconds(5))
            return try await body(client, group)
        }
    }
}
