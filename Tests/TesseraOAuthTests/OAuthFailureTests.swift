import TesseraPostgres
import Testing

@testable import TesseraOAuth

/// How the OAuth endpoints answer a failure that is not the client's.
@Suite struct OAuthFailureTests {
    @Test func aDatabaseThatCannotServeForNowIs503AndAnythingElse500() async throws {
        try await OAuthHarness.run { oauth in
            for kind in [PostgresError.Kind.unavailable, .timeout] {
                let error = oauth.environment.failure(PostgresError(kind, message: "x"), endpoint: "test")
                #expect(error.code == .temporarilyUnavailable, "\(kind)")
            }
            for kind in [PostgresError.Kind.server, .uniqueViolation, .decoding] {
                let error = oauth.environment.failure(PostgresError(kind, message: "x"), endpoint: "test")
                #expect(error.code == .serverError, "\(kind)")
            }
        }
    }
}
