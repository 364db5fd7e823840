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

    @Test func passwordChecksAreCountedPerClientAddress() async throws {
        try await CoreHarness.run { harness in
            let services = harness.services
            let accounts = try Accounts(
                database: harness.database, tokens: services.tokens, configs: services.configs, email: harness.mail,
                clock: harness.clock, hasher: CoreHarness.cheapHasher, hashing: PasswordHashingQueue(capacity: 8),
                passwordsPerClientMinute: 3)
            let client = "198.51.100.\(UInt8.random(in: 1...254))"
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
                            clientAddress: "203.0.113.9")
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
