import FoundationEssentials
import TesseraCrypto
import TesseraPostgres
import TesseraTestSupport
import Testing

@testable import TesseraCore

/// What bounds the scrypt work one client, or everyone together, can cause.
@Suite struct PasswordWorkLimitTests {
    @Test func aFullHashingQueueRefusesAtOnceWithRetryAfter() async throws {
        let queue = PasswordHashingQueue(capacity: 1)
        let (started, signalStarted) = AsyncStream.makeStream(of: Void.self)
        let (release, signalRelease) = AsyncStream.makeStream(of: Void.self)
        let holding = Task {
            try await queue.run {
                signalStarted.yield()
                for await _ in release { break }
            }
        }
        for await _ in started { break }
        // Before, the job just queued behind the others, however many there were.
        var refused: AuthError?
        do { try await queue.run {} } catch let error as AuthError { refused = error }
        #expect(refused?.reason == .tooManyAttemptsTryLater && refused?.retryAfter == 1)
        signalRelease.yield()
        try await holding.value
        try await queue.run {}
    }

    /// An IPv6 address of the documentation prefix (RFC 3849), random in its last 64 bits.
    static func randomAddress() -> String {
        "2001:db8::" + (0..<4).map { _ in String(UInt16.random(in: 0...UInt16.max), radix: 16) }.joined(separator: ":")
    }

    @Test func passwordChecksAreCountedPerClientAddress() async throws {
        try await CoreHarness.run { harness in
            let services = harness.services
            let accounts = try Accounts(
                database: harness.database, tokens: services.tokens, configs: services.configs, email: harness.mail,
                clock: harness.clock, hasher: CoreHarness.cheapHasher, hashing: PasswordHashingQueue(capacity: 8),
                passwordsPerClientMinute: 3)
            // Addresses of this run only: the counters live in the shared test database, by the minute, and a fixed
            // address failed a run that came within a minute of three others.
            let client = Self.randomAddress()
            let otherClient = Self.randomAddress()
            let email = CoreHarness.email()
            // Wrong passwords for different addresses: the per-address throttle never sees a second try.
            for index in 0..<3 {
                #expect(
                    try await reason {
                        _ = try await harness.database.withPool { pool in
                            try await accounts.checkPassword(
                                pool, email: "\(index)" + email, password: "wrong password", tenantID: nil,
                                clientAddress: client)
                        }
                    } == .invalidLoginCredentials)
            }
            #expect(
                try await reason {
                    _ = try await harness.database.withPool { pool in
                        try await accounts.checkPassword(
                            pool, email: email, password: "wrong password", tenantID: nil, clientAddress: client)
                    }
                } == .tooManyAttemptsTryLater)
            // Another client is not held back.
            #expect(
                try await reason {
                    _ = try await harness.database.withPool { pool in
                        try await accounts.checkPassword(
                            pool, email: email, password: "wrong password", tenantID: nil,
                            clientAddress: otherClient)
                    }
                } == .invalidLoginCredentials)
            harness.clock.advance(by: 60)
            #expect(
                try await reason {
                    _ = try await harness.database.withPool { pool in
                        try await accounts.checkPassword(
                            pool, email: email, password: "wrong password", tenantID: nil, clientAddress: client)
                    }
                } == .invalidLoginCredentials)
        }
    }
}
