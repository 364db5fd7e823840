import FoundationEssentials
public import TesseraCore
import TesseraCrypto
import TesseraJSON
import TesseraPostgres

/// A stored enrolment and its lock (API §4 rule 7).
struct LockableEnrollment {
    let enrollment: Enrollment
    let lockedUntil: Date?
    /// Consecutive failed attempts (``AttemptLedger``).
    let failures: Int
}

/// The users' enrolments as the admin API of the core shows and removes them (``UserEnrollments``): the one view of
/// `mfa_enrollments` outside this module, whose SQL stays in ``EnrollmentStore``.
public struct StoredEnrollments: UserEnrollments {
    /// The view.
    public init() {}

    public func list(_ db: any SQLRunner, userID: String) async throws -> [MFAEnrollment] {
        try await EnrollmentStore.stored(db, userID: userID)
    }

    public func remove(_ db: any SQLRunner, userID: String, keeping kept: [String]) async throws -> Int {
        try await EnrollmentStore.remove(db, userID: userID, keeping: kept)
    }
}

/// The factors' states of the users' enrolments (TOTP secrets, say), as a master-key rotation re-seals them
/// (`tessera reseal`); their SQL stays in ``EnrollmentStore``.
public struct EnrollmentSecrets: SealedSecretsTable {
    /// The table's secrets.
    public init() {}

    public var table: String { "mfa_enrollments" }

    public func envelopes(_ db: any SQLRunner, after key: String?, limit: Int) async throws -> [SealedEnvelope] {
        try await EnrollmentStore.sealedStates(db, after: key, limit: limit)
    }

    public func replace(_ db: any SQLRunner, key: String, old: [UInt8], new: [UInt8]) async throws -> Bool {
        try await EnrollmentStore.replaceSealedState(db, enrollmentID: key, old: old, new: new)
    }

    public func associatedData(key: String) -> [UInt8] { Array(key.utf8) }
}

/// The router's queries on `mfa_enrollments`. Every query names the owner, so one user's enrolment is never
/// reached through another's credential. The factor's state is sealed under the master key, bound to the
/// enrolment id, and opened only here.
enum EnrollmentStore {
    /// The enrolments of `userID`, oldest first, their state unsealed.
    static func all(_ db: some SQLRunner, keyRing: KeyRing, userID: String) async throws -> [LockableEnrollment] {
        let result = try await db.query(all(userIDFrom: "$1"), [userID])
        return try enrollments(result, keyRing: keyRing, userID: userID)
    }

    /// The enrolments of `userID`, oldest first, as their owner and an administrator see them: the public info their
    /// factor stored, unmasked, whether or not their factor is offered now.
    static func stored(_ db: some SQLRunner, userID: String) async throws -> [MFAEnrollment] {
        let result = try await db.query(
            """
            SELECT enrollment_id, display_name, enrolled_at, public_info::text FROM mfa_enrollments
            WHERE user_id = $1 ORDER BY enrolled_at, enrollment_id
            """, [userID])
        return try result.rows.map { row in
            MFAEnrollment(
                mfaEnrollmentId: try row.decode(String.self, at: 0),
                displayName: try row.decode(String?.self, at: 1),
                enrolledAt: RFC3339.string(from: try row.decode(Date.self, at: 2)),
                factorInfo: try object(row.decode(String.self, at: 3)) ?? JSONObject())
        }
    }

    /// Deletes the enrolments of `userID` whose ids are not in `kept`; returns how many went. The ids travel as a JSON
    /// array, which encodes any text, so no id can be read as another.
    static func remove(_ db: some SQLRunner, userID: String, keeping kept: [String]) async throws -> Int {
        let removed = try await db.query(
            """
            DELETE FROM mfa_enrollments
            WHERE user_id = $1 AND enrollment_id NOT IN (SELECT jsonb_array_elements_text($2::jsonb))
            """,
            [userID, JSONValue.array(kept.map(JSONValue.string)).description])
        return removed.affectedRows
    }

    /// The statement selecting the enrolments of the user whose id the SQL expression `userID` yields (a parameter,
    /// or a subquery such as ``PendingCredentials/owner``), oldest first; ``enrollments(_:keyRing:userID:)``
    /// decodes its result.
    static func all(userIDFrom userID: String) -> String {
        """
        SELECT enrollment_id, factor, display_name, enrolled_at, public_info::text, masked_info::text,
            sealed_state, locked_until, failures
        FROM mfa_enrollments WHERE user_id = (\(userID)) ORDER BY enrolled_at, enrollment_id
        """
    }

    /// The enrolments of `userID` in `result` (of ``all(userIDFrom:)``), their state unsealed.
    static func enrollments(_ result: PostgresResult, keyRing: KeyRing, userID: String) throws -> [LockableEnrollment] {
        try result.rows.map { row in
            let id = try row.decode(String.self, at: 0)
            let sealed = try row.decode([UInt8]?.self, at: 6)
            let enrollment = Enrollment(
                id: id, userID: userID, factor: FactorID(rawValue: try row.decode(String.self, at: 1)),
                displayName: try row.decode(String?.self, at: 2), enrolledAt: try row.decode(Date.self, at: 3),
                publicInfo: try object(row.decode(String.self, at: 4)) ?? JSONObject(),
                maskedInfo: try row.decode(String?.self, at: 5).flatMap(object),
                state: try sealed.map { try keyRing.open($0, associatedData: Array(id.utf8)) } ?? [])
            return LockableEnrollment(
                enrollment: enrollment, lockedUntil: try row.decode(Date?.self, at: 7),
                failures: try row.decode(Int.self, at: 8))
        }
    }

    /// Up to `limit` sealed states, by enrolment id, after `enrollmentID` (from the first when nil).
    static func sealedStates(
        _ db: some SQLRunner, after enrollmentID: String?, limit: Int
    ) async throws
        -> [SealedEnvelope]
    {
        let result = try await db.query(
            """
            SELECT enrollment_id, sealed_state FROM mfa_enrollments
            WHERE enrollment_id > coalesce($1::text, '') AND sealed_state IS NOT NULL
            ORDER BY enrollment_id LIMIT $2
            """, [enrollmentID, limit])
        return try SealedEnvelope.rows(of: result)
    }

    /// Replaces the sealed state of `enrollmentID` with `new` when it still is `old`; whether it did.
    static func replaceSealedState(
        _ db: some SQLRunner, enrollmentID: String, old: [UInt8], new: [UInt8]
    ) async throws -> Bool {
        try await db.query(
            "UPDATE mfa_enrollments SET sealed_state = $3 WHERE enrollment_id = $1 AND sealed_state = $2",
            [enrollmentID, old, new]
        ).affectedRows == 1
    }

    /// Locks the owner's row until the transaction ends, so concurrent enrolments of one user are counted one
    /// after the other; returns how many enrolments the user has.
    static func lockOwnerAndCount(_ db: some SQLRunner, userID: String) async throws -> Int {
        try await db.query("SELECT 1 FROM users WHERE user_id = $1 FOR UPDATE", [userID])
        let result = try await db.query("SELECT count(*) FROM mfa_enrollments WHERE user_id = $1", [userID])
        return try result[0].decode(Int.self, at: 0)
    }

    /// Deletes every enrolment of `factor` of `userID`; returns how many there were.
    static func deleteAll(_ db: some SQLRunner, userID: String, factor: FactorID) async throws -> Int {
        try await db.query(
            "DELETE FROM mfa_enrollments WHERE user_id = $1 AND factor = $2", [userID, factor.rawValue]
        ).affectedRows
    }

    /// Writes a new enrolment with what its factor returned; `SECOND_FACTOR_EXISTS` when the user already has an
    /// enrolment of the factor with the same unique key.
    static func insert(
        _ db: some SQLRunner, keyRing: KeyRing, _ enrollment: Enrollment, _ enrolled: EnrolledFactor
    ) async throws {
        let sealed =
            enrolled.state.isEmpty
            ? nil : try keyRing.seal(enrolled.state, associatedData: Array(enrollment.id.utf8))
        let inserted = try await db.query(
            """
            INSERT INTO mfa_enrollments (enrollment_id, user_id, factor, display_name, enrolled_at, public_info,
                masked_info, sealed_state, replay_mark, unique_key)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (user_id, factor, unique_key) WHERE unique_key IS NOT NULL DO NOTHING
            RETURNING 1
            """,
            [
                enrollment.id, enrollment.userID, enrollment.factor.rawValue, enrollment.displayName,
                enrollment.enrolledAt, PostgresJSONB(JSONValue.object(enrolled.publicInfo).description),
                enrolled.maskedInfo.map { PostgresJSONB(JSONValue.object($0).description) }, sealed,
                enrolled.replayMark, enrolled.uniqueKey,
            ])
        guard inserted.rowCount == 1 else {
            throw AuthError(.secondFactorExists, "This second factor is already enrolled for the user.")
        }
    }

    /// The statement that records a sign-in with a right code at enrolment `enrollmentID`, for the pipeline that
    /// issues the sign-in's tokens (one implicit transaction): it consumes the pending credential whose hash is
    /// `credentialHash`, moves the enrolment's replay mark forward by a compare-and-swap (a verdict's mark not above
    /// the stored one is a replay), stores the verdict's new state and the new `publicInfo` (when given), and clears
    /// the consecutive failures of every enrolment of the user (a right second factor proves the user, whichever
    /// enrolment counted them). When the credential was used meanwhile, or the code is a replay, the statement fails
    /// (``refusal(_:)`` names why), so the pipeline's transaction rolls back: a refused code consumes nothing and
    /// issues nothing.
    static func recordSignIn(
        keyRing: KeyRing, _ verdict: SignInVerdict, enrollmentID: String, credentialHash: [UInt8],
        publicInfo: JSONObject?
    ) throws -> PostgresQuery {
        let sealed = try verdict.state.flatMap { state in
            state.isEmpty ? nil : try keyRing.seal(state, associatedData: Array(enrollmentID.utf8))
        }
        return PostgresQuery(
            """
            WITH consumed AS (
                DELETE FROM mfa_pending_credentials WHERE handle_hash = $1 RETURNING 1
            ), recorded AS (
                UPDATE mfa_enrollments SET replay_mark = coalesce($3, replay_mark),
                    sealed_state = CASE WHEN $4 THEN $5 ELSE sealed_state END,
                    public_info = coalesce($6::text::jsonb, public_info), failures = 0, locked_until = NULL
                WHERE enrollment_id = $2 AND ($3::bigint IS NULL OR replay_mark IS NULL OR replay_mark < $3)
                    AND EXISTS (SELECT 1 FROM consumed)
                RETURNING user_id
            ), cleared AS (
                UPDATE mfa_enrollments SET failures = 0, locked_until = NULL
                WHERE user_id = (SELECT user_id FROM recorded) AND enrollment_id <> $2
                    AND (failures > 0 OR locked_until IS NOT NULL)
            )
            SELECT CASE
                WHEN NOT EXISTS (SELECT 1 FROM consumed) THEN mfa_refuse('\(Self.usedCredential)')
                WHEN NOT EXISTS (SELECT 1 FROM recorded) THEN mfa_refuse('\(Self.replayedCode)')
                ELSE true END
            """,
            [
                credentialHash, enrollmentID, verdict.replayMark, verdict.state != nil, sealed,
                publicInfo.map { JSONValue.object($0).description },
            ])
    }

    /// Why ``recordSignIn(keyRing:_:enrollmentID:credentialHash:publicInfo:)`` refused, as the caller answers it:
    /// `INVALID_MFA_PENDING_CREDENTIAL` or `INVALID_CODE`; nil for any other error.
    static func refusal(_ error: PostgresError) -> AuthError? {
        guard error.sqlState == MultiFactorMigrations.refusalState else { return nil }
        switch error.message {
        case usedCredential:
            return AuthError(.invalidMFAPendingCredential, "The pending credential is invalid or has been used.")
        case replayedCode:
            return AuthError(.invalidCode, "The verification code is not valid.")
        default:
            return nil
        }
    }

    private static let usedCredential = "pending credential used"
    private static let replayedCode = "code replayed"

    /// Whether `phoneNumber` belongs to a multi-factor user of `tenantID`: an account of the tenant with that number
    /// and at least one enrolment, or an account of the tenant with an enrolment of `factor` whose unique key is the
    /// number. One statement, so it reads one snapshot.
    static func isMultiFactorPhoneNumber(
        _ db: some SQLRunner, _ phoneNumber: String, enrolledAs factor: FactorID, tenantID: String?
    ) async throws -> Bool {
        let found = try await db.query(
            """
            SELECT 1 FROM users u JOIN mfa_enrollments e USING (user_id)
                WHERE coalesce(u.tenant_id, '') = $1 AND u.phone_number = $2
            UNION ALL
            SELECT 1 FROM mfa_enrollments e JOIN users u USING (user_id)
                WHERE e.factor = $3 AND e.unique_key = $2 AND coalesce(u.tenant_id, '') = $1
            LIMIT 1
            """, [UserStore.key(tenantID), phoneNumber, factor.rawValue])
        return found.rowCount > 0
    }

    /// Deletes enrolment `enrollmentID` of `userID`; false when there is none.
    static func delete(_ db: some SQLRunner, enrollmentID: String, userID: String) async throws -> Bool {
        let deleted = try await db.query(
            "DELETE FROM mfa_enrollments WHERE enrollment_id = $1 AND user_id = $2 RETURNING 1", [enrollmentID, userID])
        return deleted.rowCount == 1
    }

    private static func object(_ text: String) throws -> JSONObject? {
        try JSONValue(parsing: text).objectValue
    }
}
