public import FoundationEssentials
import TesseraJSON
public import TesseraPostgres

/// The queries on `users` (its one store). Every lookup names the tenant (`coalesce(tenant_id, '')`,
/// the empty string for the project level), so a user of one tenant is never found through another (DESIGN §4).
public enum UserStore {
    /// The tenant key of the queries: the tenant id, or `''` for the project level.
    public static func key(_ tenantID: String?) -> String { tenantID ?? "" }

    /// The user with id `userID` in tenant `tenantID`, or nil.
    public static func find(_ db: some SQLRunner, id userID: String, tenantID: String?) async throws -> UserRecord? {
        try await findOne(db, column: "user_id", equals: userID, tenantID: tenantID)
    }

    /// The statement selecting the user whose id the SQL expression `id` yields (a subquery on the caller's own
    /// table, whose parameters are `parameters`), for a pipeline beside the caller's reads; ``user(_:tenantID:)``
    /// decodes its result. The caller's module keeps the SQL of its table, this one the SQL of `users`.
    public static func find(idFrom id: String, _ parameters: [any PostgresEncodable]) -> PostgresQuery {
        PostgresQuery("SELECT \(UserRecord.columns) FROM users WHERE user_id = (\(id))", parameters)
    }

    /// The user a result of ``find(idFrom:_:)`` holds when they belong to tenant `tenantID`, or nil.
    public static func user(_ result: PostgresResult, tenantID: String?) throws -> UserRecord? {
        guard let row = result.rows.first else { return nil }
        let user = try UserRecord(row: row)
        return user.tenantID == tenantID ? user : nil
    }

    /// The user with (normalized) e-mail `email` in tenant `tenantID`, or nil.
    static func find(_ db: some SQLRunner, email: String, tenantID: String?) async throws -> UserRecord? {
        try await findOne(db, column: "email", equals: email, tenantID: tenantID)
    }

    /// The user with phone number `phoneNumber` in tenant `tenantID`, or nil.
    static func find(_ db: some SQLRunner, phoneNumber: String, tenantID: String?) async throws -> UserRecord? {
        try await findOne(db, column: "phone_number", equals: phoneNumber, tenantID: tenantID)
    }

    /// The user of `tenantID` whose `column` (a fixed, unique-per-tenant column name) equals `value`, or nil.
    private static func findOne(
        _ db: some SQLRunner, column: StaticString, equals value: String, tenantID: String?
    ) async throws -> UserRecord? {
        let result = try await db.query(
            "SELECT \(UserRecord.columns) FROM users WHERE coalesce(tenant_id, '') = $1 AND \(column) = $2",
            [key(tenantID), value])
        return try result.rows.first.map { row throws(PostgresError) in try UserRecord(row: row) }
    }

    /// Inserts `user`. A taken e-mail or phone number in the tenant is `EMAIL_EXISTS` / `PHONE_NUMBER_EXISTS`,
    /// decided by the unique indexes, so concurrent sign-ups of one address create exactly one user.
    static func insert(_ db: some SQLRunner, _ user: UserRecord) async throws {
        do {
            try await db.query(insertStatement, insertValues(user))
        } catch {
            throw conflict(error)
        }
    }

    /// The statement inserting `user`, to run in a pipeline; map its failure with ``conflict(_:)``.
    static func insertQuery(_ user: UserRecord) -> PostgresQuery {
        PostgresQuery(insertStatement, insertValues(user))
    }

    /// Inserts `user` (who has a phone number and no e-mail) unless the tenant already has an account with its
    /// number; whether it was inserted. The conflict is not an error, so this can run inside a transaction.
    static func insertUnlessPhoneTaken(_ db: some SQLRunner, _ user: UserRecord) async throws -> Bool {
        let inserted = try await db.query(
            insertStatement + " ON CONFLICT ((coalesce(tenant_id, '')), phone_number) WHERE phone_number IS NOT NULL"
                + " DO NOTHING RETURNING 1",
            insertValues(user))
        return inserted.rowCount == 1
    }

    private static let insertStatement = """
        INSERT INTO users (\(UserRecord.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
        """

    private static func insertValues(_ user: UserRecord) -> [any PostgresEncodable] {
        [
            user.userID, user.tenantID, user.email, user.emailVerified, user.phoneNumber, user.displayName,
            user.passwordHash, user.phoneSignIn, user.disabled, user.createdAt, user.lastLoginAt,
            user.tokensValidAfter,
        ]
    }

    /// Writes every settable column of `user` (matched by id and tenant). Conflicts as in ``insert(_:_:)``.
    static func update(_ db: some SQLRunner, _ user: UserRecord) async throws {
        do {
            try await db.query(
                """
                UPDATE users SET email = $3, email_verified = $4, phone_number = $5, display_name = $6,
                    password_hash = $7, phone_sign_in = $8, disabled = $9, last_login_at = $10,
                    tokens_valid_after = $11
                WHERE user_id = $1 AND coalesce(tenant_id, '') = $2
                """,
                [
                    user.userID, key(user.tenantID), user.email, user.emailVerified, user.phoneNumber,
                    user.displayName, user.passwordHash, user.phoneSignIn, user.disabled, user.lastLoginAt,
                    user.tokensValidAfter,
                ])
        } catch {
            throw conflict(error)
        }
    }

    /// Sets the password hash of `userID` (a reset: the caller revokes the user's tokens with it).
    static func setPasswordHash(_ db: some SQLRunner, userID: String, _ hash: String) async throws {
        try await db.query("UPDATE users SET password_hash = $2 WHERE user_id = $1", [userID, hash])
    }

    /// Marks the e-mail address of `userID` verified.
    static func markEmailVerified(_ db: some SQLRunner, userID: String) async throws {
        try await db.query("UPDATE users SET email_verified = true WHERE user_id = $1", [userID])
    }

    /// Marks `userID` as one who signs in with their phone number.
    static func markPhoneSignIn(_ db: some SQLRunner, userID: String) async throws {
        try await db.query("UPDATE users SET phone_sign_in = true WHERE user_id = $1", [userID])
    }

    /// The statement that records a completed sign-in of `userID` at `time` (`lastLoginAt`), for the pipeline that
    /// issues its tokens.
    public static func recordSignIn(userID: String, at time: Date) -> PostgresQuery {
        PostgresQuery("UPDATE users SET last_login_at = $2 WHERE user_id = $1", [userID, time])
    }

    /// Deletes `userID` and, by the cascades of the schema, everything that is theirs (enrolments, codes, sign-ins).
    static func delete(_ db: some SQLRunner, userID: String) async throws {
        try await db.query("DELETE FROM users WHERE user_id = $1", [userID])
    }

    /// Revokes every token of `userID` issued up to `now`: ID tokens by moving `tokens_valid_after`, refresh
    /// tokens by revoking every family; password-reset links sent before go too.
    public static func revokeTokens(_ db: some SQLRunner, userID: String, now: Date) async throws {
        try await db.query("DELETE FROM oob_codes WHERE user_id = $1 AND kind = 'PASSWORD_RESET'", [userID])
        try await db.query(
            "UPDATE users SET tokens_valid_after = date_trunc('second', $2::timestamptz) WHERE user_id = $1",
            [userID, now])
        try await TokenFamilies.revokeAll(db, userID: userID, now: now)
    }

    /// `EMAIL_EXISTS` or `PHONE_NUMBER_EXISTS` for a unique violation of the user's address; `error` otherwise.
    static func conflict(_ error: PostgresError) -> any Error {
        if error.violates("users_email_per_tenant") {
            return AuthError(.emailExists, "The e-mail address is already in use by another account.")
        }
        if error.violates("users_phone_per_tenant") {
            return AuthError(.phoneNumberExists, "The phone number is already in use by another account.")
        }
        return error
    }
}
