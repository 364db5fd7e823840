import TesseraCore
import TesseraPostgres

/// The queries on `phone_enrollments`: the number behind each SMS enrolment.
enum PhoneEnrollments {
    /// Whether `userID` has an SMS enrolment of `phoneNumber`.
    static func exists(_ db: some SQLRunner, userID: String, phoneNumber: String) async throws -> Bool {
        try await db.query(
            "SELECT 1 FROM phone_enrollments WHERE user_id = $1 AND phone_number = $2", [userID, phoneNumber]
        ).rowCount > 0
    }

    /// Records the number of a new enrolment.
    static func insert(_ db: some SQLRunner, enrollmentID: String, userID: String, phoneNumber: String) async throws {
        try await db.query(
            "INSERT INTO phone_enrollments (enrollment_id, user_id, phone_number) VALUES ($1, $2, $3)",
            [enrollmentID, userID, phoneNumber])
    }

    /// The number of enrolment `enrollmentID`; `MFA_ENROLLMENT_NOT_FOUND` when it has none.
    static func number(_ db: some SQLRunner, enrollmentID: String) async throws -> String {
        let found = try await db.query(
            "SELECT phone_number FROM phone_enrollments WHERE enrollment_id = $1", [enrollmentID])
        guard let row = found.rows.first else {
            throw AuthError(.mfaEnrollmentNotFound, "The SMS enrolment has no number; enrol again.")
        }
        return try row.decode(String.self, at: 0)
    }

    /// Whether `phoneNumber` belongs to a multi-factor user of `tenantID`: an account with that number and at
    /// least one enrolment, or an account that enrolled the number as its second factor. Such a number cannot be
    /// a first factor (`UNSUPPORTED_FIRST_FACTOR`).
    static func isMultiFactorNumber(
        _ db: some SQLRunner, _ phoneNumber: String, tenantID: String?
    ) async throws -> Bool {
        let found = try await db.query(
            """
            SELECT 1 FROM users u JOIN mfa_enrollments e USING (user_id)
                WHERE coalesce(u.tenant_id, '') = $1 AND u.phone_number = $2
            UNION ALL
            SELECT 1 FROM phone_enrollments p JOIN users u USING (user_id)
                WHERE coalesce(u.tenant_id, '') = $1 AND p.phone_number = $2
            LIMIT 1
            """, [UserStore.key(tenantID), phoneNumber])
        return found.rowCount > 0
    }
}
