import MultiFactor
import TesseraCore
import TesseraPostgres
import TesseraTestSupport
import Testing

/// The enrolments as the core's users admin lists and removes them (``StoredEnrollments``).
@Suite struct StoredEnrollmentsTests {
    /// Ids are not only the server's: whatever their text (quotes, commas, braces, backslashes), the ones kept stay
    /// and only the others go. The array literal built by hand before failed on them ("malformed array literal").
    @Test func removingKeepsExactlyTheIdsNamedWhateverTheirText() async throws {
        try await MFAHarness.run { mfa in
            let user = try await mfa.verifiedUser(tenantID: nil)
            // Enrolment ids are unique across the shared test database: each run has its own.
            let run = "\(UInt32.random(in: 0 ... .max))"
            let ids = [#"a","b"#, "b", "{c}", #"d\"#, "e,f", "plain"].map { run + $0 }
            for id in ids {
                try await mfa.core.sql(
                    """
                    INSERT INTO mfa_enrollments (enrollment_id, user_id, factor, enrolled_at) VALUES ($1, $2, 'totp', now())
                    """, [id, user.tokens.localId])
            }
            let kept = [ids[0], ids[2], ids[3]]
            let removed = try await mfa.core.database.withPool { pool in
                try await StoredEnrollments().remove(pool, userID: user.tokens.localId, keeping: kept)
            }
            #expect(removed == 3)
            let left = try await mfa.core.database.withPool { pool in
                try await StoredEnrollments().list(pool, userID: user.tokens.localId).map(\.mfaEnrollmentId)
            }
            #expect(Set(left) == Set(kept))
        }
    }
}
