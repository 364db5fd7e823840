import FoundationEssentials
public import TesseraCrypto
import TesseraJSON
public import TesseraPostgres

/// The `users.*` admin methods (API §5). Every method checks the key's scope against the tenant first, then
/// that the tenant exists; every change is audited in its own transaction.
public final class UsersAdmin: Sendable {
    /// One page of `users.list`.
    public struct Page: Codable, Sendable, Equatable {
        public var users: [User]
        public var nextPageToken: String?
    }

    let database: PostgresClient
    let configs: ConfigStore
    let clock: any WallClock
    let passwords: PasswordPolicy
    let enrollments: any UserEnrollments

    /// The users admin over `database`, showing and removing users' enrolments through `enrollments`.
    public init(
        database: PostgresClient, configs: ConfigStore, clock: any WallClock, enrollments: any UserEnrollments,
        hasher: PasswordHasher = PasswordHasher(), hashing: PasswordHashingQueue = .forThreadPool()
    ) {
        self.database = database
        self.configs = configs
        self.clock = clock
        self.enrollments = enrollments
        passwords = PasswordPolicy(hasher: hasher, queue: hashing)
    }

    /// `users.create`.
    public func create(tenantID: String?, _ fields: UserChanges, actor: AuditLog.Actor) async throws -> User {
        try actor.principal.require(tenant: tenantID)
        let passwordHash = try await newPasswordHash(fields)
        let now = clock.now()
        var user = UserRecord(
            userID: try SecureRandom.identifier(), tenantID: tenantID, email: nil, emailVerified: false,
            phoneNumber: nil, displayName: nil, passwordHash: nil, phoneSignIn: false, disabled: false, createdAt: now,
            lastLoginAt: nil, tokensValidAfter: Date(timeIntervalSince1970: 0))
        try apply(fields, to: &user, passwordHash: passwordHash)
        let created = user
        return try await database.withPool { pool in
            try await pool.transaction { transaction in
                try await self.configs.requireTenant(transaction, tenantID)
                try await UserStore.insert(transaction, created)
                let view = created.publicView(mfaInfo: [])
                try await AuditLog.record(
                    transaction, actor: actor, target: "users/\(created.userID)", tenantID: tenantID, before: nil,
                    after: Self.auditView(view, passwordSet: fields.password != nil), now: now)
                return view
            }
        }
    }

    /// `users.get`.
    public func get(tenantID: String?, _ lookup: UserLookup, actor: AdminPrincipal) async throws -> User {
        try actor.require(tenant: tenantID)
        return try await database.withPool { pool in
            try await self.configs.requireTenant(pool, tenantID)
            let user = try await Self.find(pool, lookup, tenantID: tenantID)
            return try await self.publicView(pool, user)
        }
    }

    /// `users.list`: ordered by id, `pageSize` (1–100, default 20) at a time.
    public func list(tenantID: String?, pageSize: Int?, pageToken: String?, actor: AdminPrincipal) async throws -> Page
    {
        try actor.require(tenant: tenantID)
        let size = try PageCursor.pageSize(pageSize)
        let after = try pageToken.map(PageCursor.decode)?.id ?? ""
        return try await database.withPool { pool in
            try await self.configs.requireTenant(pool, tenantID)
            let result = try await pool.query(
                """
                SELECT \(UserRecord.columns) FROM users WHERE coalesce(tenant_id, '') = $1 AND user_id > $2
                ORDER BY user_id LIMIT $3
                """, [UserStore.key(tenantID), after, size + 1])
            var users: [User] = []
            for row in result.rows.prefix(size) {
                users.append(try await self.publicView(pool, try UserRecord(row: row)))
            }
            let next = result.rowCount > size ? users.last.map { PageCursor(time: nil, id: $0.localId).encoded } : nil
            return Page(users: users, nextPageToken: next)
        }
    }

    /// `users.update`. A new password or disabling the user also revokes every token of the user, as does
    /// removing enrolments; `mfaInfo` can only remove enrolments (`MFA_ENROLLMENT_NOT_FOUND` for ids the user
    /// does not have).
    public func update(
        tenantID: String?, localID: String, _ changes: UserChanges, actor: AuditLog.Actor
    ) async throws -> User {
        // The scope before the scrypt hash: a key of another tenant costs no hashing.
        try actor.principal.require(tenant: tenantID)
        let passwordHash = try await newPasswordHash(changes)
        return try await changingUser(tenantID: tenantID, localID: localID, actor: actor) { transaction, found, now in
            var user = found
            let before = try await self.publicView(transaction, user)
            try self.apply(changes, to: &user, passwordHash: passwordHash)
            try await UserStore.update(transaction, user)
            var revokes = changes.password != nil || changes.disabled == true
            if let kept = changes.keptEnrollmentIDs {
                let existing = Set(before.mfaInfo.map(\.mfaEnrollmentId))
                if let unknown = kept.first(where: { !existing.contains($0) }) {
                    throw AuthError(.mfaEnrollmentNotFound, "The user has no enrolment \(unknown).")
                }
                let removed = try await self.enrollments.remove(transaction, userID: user.userID, keeping: kept)
                revokes = revokes || removed > 0
            }
            if revokes { try await UserStore.revokeTokens(transaction, userID: user.userID, now: now) }
            let after = try await self.publicView(transaction, user)
            try await AuditLog.record(
                transaction, actor: actor, target: "users/\(user.userID)", tenantID: tenantID,
                before: Self.auditView(before, passwordSet: false),
                after: Self.auditView(after, passwordSet: changes.password != nil), now: now)
            return after
        }
    }

    /// `users.delete`: the user and everything they own (tokens, enrolments, codes).
    public func delete(tenantID: String?, localID: String, actor: AuditLog.Actor) async throws {
        try await changingUser(tenantID: tenantID, localID: localID, actor: actor) { transaction, user, now in
            let before = try await self.publicView(transaction, user)
            try await UserStore.delete(transaction, userID: user.userID)
            try await AuditLog.record(
                transaction, actor: actor, target: "users/\(user.userID)", tenantID: tenantID,
                before: Self.auditView(before, passwordSet: false), after: nil, now: now)
        }
    }

    /// `users.revokeTokens`: every ID and refresh token of the user issued until now stops working.
    public func revokeTokens(tenantID: String?, localID: String, actor: AuditLog.Actor) async throws {
        try await changingUser(tenantID: tenantID, localID: localID, actor: actor) { transaction, user, now in
            try await UserStore.revokeTokens(transaction, userID: user.userID, now: now)
            try await AuditLog.record(
                transaction, actor: actor, target: "users/\(user.userID)", tenantID: tenantID, before: nil,
                after: ["tokensValidAfter": .string(RFC3339.string(from: now))], now: now)
        }
    }

    /// `user` as the API shows it, with its enrolments.
    private func publicView(_ db: some SQLRunner, _ user: UserRecord) async throws -> User {
        user.publicView(mfaInfo: try await enrollments.list(db, userID: user.userID))
    }

    /// Runs `change` in one transaction on user `localID` of `tenantID`, read and locked (`FOR UPDATE`), after
    /// the key's scope and the tenant are checked; `change` gets the time of the change too.
    private func changingUser<T: Sendable>(
        tenantID: String?, localID: String, actor: AuditLog.Actor,
        _ change: @escaping @Sendable (PostgresTransaction, UserRecord, Date) async throws -> T
    ) async throws -> T {
        try actor.principal.require(tenant: tenantID)
        let now = clock.now()
        return try await database.withPool { pool in
            try await pool.transaction { transaction in
                try await self.configs.requireTenant(transaction, tenantID)
                let user = try await Self.find(transaction, .localID(localID), tenantID: tenantID, forUpdate: true)
                return try await change(transaction, user, now)
            }
        }
    }

    /// The scrypt hash of the new password, checked first (`WEAK_PASSWORD`); nil when there is none.
    private func newPasswordHash(_ changes: UserChanges) async throws -> String? {
        guard let password = changes.password else { return nil }
        try PasswordPolicy.check(password)
        return try await passwords.hash(password)
    }

    private func apply(_ changes: UserChanges, to user: inout UserRecord, passwordHash: String?) throws {
        if let email = changes.email {
            let normalized = try EmailAddress.normalize(email)
            if normalized != user.email { user.emailVerified = false }
            user.email = normalized
        }
        if let verified = changes.emailVerified { user.emailVerified = verified }
        if let phoneNumber = changes.phoneNumber {
            if phoneNumber.isEmpty {
                user.phoneNumber = nil
                user.phoneSignIn = false
            } else {
                guard PhoneNumber.isE164(phoneNumber) else {
                    throw AuthError(.invalidPhoneNumber, "phoneNumber must be E.164: + and 8 to 15 digits.")
                }
                user.phoneNumber = phoneNumber
                user.phoneSignIn = true
            }
        }
        if let displayName = changes.displayName {
            user.displayName = displayName.isEmpty ? nil : try DisplayName.check(displayName)
        }
        if let disabled = changes.disabled { user.disabled = disabled }
        if let passwordHash { user.passwordHash = passwordHash }
    }

    private static func find(
        _ db: some SQLRunner, _ lookup: UserLookup, tenantID: String?, forUpdate: Bool = false
    ) async throws -> UserRecord {
        if forUpdate, case .localID(let id) = lookup {
            try await db.query("SELECT 1 FROM users WHERE user_id = $1 FOR UPDATE", [id])
        }
        let found: UserRecord?
        switch lookup {
        case .localID(let id): found = try await UserStore.find(db, id: id, tenantID: tenantID)
        case .email(let email):
            found = try await UserStore.find(db, email: try EmailAddress.normalize(email), tenantID: tenantID)
        case .phoneNumber(let phone): found = try await UserStore.find(db, phoneNumber: phone, tenantID: tenantID)
        }
        guard let found else { throw AuthError(.userNotFound, "There is no such user.") }
        return found
    }

    /// The audit form of a user: its public view, and a redacted `password` member when one was set.
    private static func auditView(_ user: User, passwordSet: Bool) throws -> JSONValue {
        var value = try JSONValueEncoder().encode(user)
        if passwordSet, case .object(var object) = value {
            object["password"] = .string("[REDACTED]")
            value = .object(object)
        }
        return value
    }
}
