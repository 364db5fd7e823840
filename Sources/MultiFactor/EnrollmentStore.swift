import FoundationEssentials
import TesseraCore
import TesseraJSON
import TesseraPostgres

/// A stored enrolment and its lock (API §4 rule 7).
struct LockableEnrollment {
    let enrollment: Enrollment
    let lockedUntil: Date?
}

/// The router's queries on `mfa_enrollments`. Every query names the owner, so one user's enrolment is never
/// reached through another's credential.
enum EnrollmentStore {
    /// The enrolments of `userID`, oldest first.
    static func all(_ db: some SQLRunner, userID: String) async throws -> [LockableEnrollment] {
        let result = try await db.query(
            """
            SELECT enrollment_id, factor, display_name, enrolled_at, public_info::text, locked_until
            FROM mfa_enrollments WHERE user_id = $1 ORDER BY enrolled_at, enrollment_id
            """, [userID])
        return try result.rows.map { row in
            let info = try JSONValue(parsing: try row.decode(String.self, at: 4)).objectValue
            let enrollment = Enrollment(
                id: try row.decode(String.self, at: 0), userID: userID,
                factor: FactorID(rawValue: try row.decode(String.self, at: 1)),
                displayName: try row.decode(String?.self, at: 2), enrolledAt: try row.decode(Date.self, at: 3),
                publicInfo: info ?? JSONObject())
            return LockableEnrollment(enrollment: enrollment, lockedUntil: try row.decode(Date?.self, at: 5))
        }
    }

    /// Locks the owner's row until the transaction ends, so concurrent enrolments of one user are counted one
    /// after the other; returns how many enrolments the user has.
    static func lockOwnerAndCount(_ db: some SQLRunner, userID: String) async throws -> Int {
        try await db.query("SELECT 1 FROM users WHERE user_id = $1 FOR UPDATE", [userID])
        let result = try await db.query("SELECT count(*) FROM mfa_enrollments WHERE user_id = $1", [userID])
        return try result[0].decode(Int.self, at: 0)
    }

    /// Writes a new enrolment row (its public info comes later, from its factor).
    static func insert(_ db: some SQLRunner, _ enrollment: Enrollment) async throws {
        try await db.query(
            """
            INSERT INTO mfa_enrollments (enrollment_id, user_id, factor, display_name, enrolled_at, public_info)
            VALUES ($1, $2, $3, $4, $5, $6)
            """,
            [
                enrollment.id, enrollment.userID, enrollment.factor.rawValue, enrollment.displayName,
                enrollment.enrolledAt, PostgresJSONB(JSONValue.object(enrollment.publicInfo).description),
            ])
    }

    /// Sets what the owner sees of `enrollmentID`.
    static func setPublicInfo(_ db: some SQLRunner, enrollmentID: String, _ info: JSONObject) async throws {
        try await db.query(
            "UPDATE mfa_enrollments SET public_info = $2 WHERE enrollment_id = $1",
            [enrollmentID, PostgresJSONB(JSONValue.object(info).description)])
    }

    /// Deletes enrolment `enrollmentID` of `userID` (its factor's rows go with it); false when there is none.
    static func delete(_ db: some SQLRunner, enrollmentID: String, userID: String) async throws -> Bool {
        let deleted = try await db.query(
            "DELETE FROM mfa_enrollments WHERE enrollment_id = $1 AND user_id = $2 RETURNING 1", [enrollmentID, userID])
        return deleted.rowCount == 1
    }
}
