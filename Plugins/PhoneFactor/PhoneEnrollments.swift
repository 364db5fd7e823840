import MultiFactor
import TesseraCore
import TesseraPostgres

/// What phone sign-in asks of the SMS second factor's enrolments, which the router keeps in `mfa_enrollments` with
/// the number as their unique key.
enum PhoneEnrollments {
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
            SELECT 1 FROM mfa_enrollments e JOIN users u USING (user_id)
                WHERE e.factor = $3 AND e.unique_key = $2 AND coalesce(u.tenant_id, '') = $1
            LIMIT 1
            """, [UserStore.key(tenantID), phoneNumber, PhoneFactor.id.rawValue])
        return found.rowCount > 0
    }
}
