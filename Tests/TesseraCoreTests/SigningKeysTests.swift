import TesseraCrypto
import TesseraTestSupport
import Testing

@testable import TesseraCore

/// The keys each server caches are read again in the background before they are too old.
struct SigningKeysTests {
    @Test func keysHalfAsOldAsTheirIntervalAreReadAgainInTheBackground() async throws {
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
                #expect(try await keys.signer().kid == before, "past half the interval: served, and read again")
                // Read before the bound (6 s): the background read stored it.
                try await waitUntil(.seconds(2)) { try await keys.signer().kid == rotated }
            }
        }
    }
}
