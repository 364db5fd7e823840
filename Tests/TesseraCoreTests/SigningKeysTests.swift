import TesseraCrypto
import TesseraTestSupport
import Testing

@testable import TesseraCore

/// The keys each server caches are read again by one request before they are too old.
struct SigningKeysTests {
    @Test func keysHalfAsOldAsTheirIntervalAreReadAgainByTheNextRequest() async throws {
        try await SigningKeyRotation.exclusively {
            try await CoreHarness.run { harness in
                // Keys of their own, with a short interval and no change notices: only their age makes them read.
                let keys = SigningKeys(
                    database: harness.database, keyRing: harness.services.keyRing, clock: harness.clock,
                    refreshInterval: .seconds(6))
                try await keys.prepare()
                let before = try await keys.signer().kid
                let actor = AuditLog.Actor(
                    principal: AdminPrincipal(keyID: "test", scope: .project), method: "keys.rotate", requestID: "r")
                let rotated = try await harness.services.signingKeys.rotate(actor: actor)
                #expect(rotated != before)
                #expect(try await keys.signer().kid == before, "younger than half the interval: cached")
                try await Task.sleep(for: .milliseconds(3_100))
                #expect(try await keys.signer().kid == rotated, "past half the interval: read again")
            }
        }
    }
}
