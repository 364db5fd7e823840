import TesseraPostgres

/// The second-factor enrolments of a user as the admin API shows and removes them (`users.get`, `users.list`,
/// `users.update`'s `mfaInfo`). The multi-factor module owns their table, `mfa_enrollments`, and gives the core this
/// view of it (`MultiFactor.StoredEnrollments`), so the core holds none of the table's SQL (the table's first
/// migration is the core's only because it came first).
public protocol UserEnrollments: Sendable {
    /// The enrolments of `userID`, oldest first, with the public info their factor stored (unmasked: what the
    /// owner and an administrator see), read on `db`.
    func list(_ db: any SQLRunner, userID: String) async throws -> [MFAEnrollment]

    /// Removes the enrolments of `userID` whose ids are not in `kept`, on `db` (the caller's transaction); returns
    /// how many went.
    func remove(_ db: any SQLRunner, userID: String, keeping kept: [String]) async throws -> Int
}
