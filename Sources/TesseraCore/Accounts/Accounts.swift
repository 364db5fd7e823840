public import FoundationEssentials
public import TesseraCrypto
public import TesseraPostgres

/// The account methods of the public listener (API §3): e-mail and password sign-up, the password check of a
/// sign-in, e-mail verification, deletion and refresh (the `MultiFactorRouter` decides what follows a first factor,
/// and serves `accounts.lookup`). Every method runs under the effective configuration of its tenant (or the
/// project): an unknown tenant is `TENANT_NOT_FOUND`, a tenant with `disableAuth` is `PROJECT_DISABLED`.
public final class Accounts: Sendable {
    /// How long an e-mail verification code is good for.
    public static let oobCodeLifetime: TimeInterval = 24 * 3600

    let database: PostgresClient
    let tokens: Tokens
    let configs: ConfigStore
    let email: any EmailSender
    let clock: any WallClock
    let passwords: PasswordPolicy
    /// A hash that is checked when no account matches, so a sign-in takes as long whether or not it exists.
    private let decoyHash: String

    /// Password checks and sign-ups per client address and minute.
    let passwordsPerClient: RateLimit

    /// Accounts over `database`; `hasher` sets the scrypt cost (tests use a cheap one), `hashing` bounds the scrypt
    /// jobs of the whole server, and each client address may check or set `passwordsPerClientMinute` passwords a
    /// minute.
    public init(
        database: PostgresClient, tokens: Tokens, configs: ConfigStore, email: any EmailSender,
        clock: any WallClock, hasher: PasswordHasher = PasswordHasher(),
        hashing: PasswordHashingQueue = .forThreadPool(), passwordsPerClientMinute: Int = 600
    ) throws {
        self.database = database
        self.tokens = tokens
        self.configs = configs
        self.email = email
        self.clock = clock
        passwords = PasswordPolicy(hasher: hasher, queue: hashing)
        passwordsPerClient = RateLimit(
            name: "password_client", limit: passwordsPerClientMinute, window: 60,
            refusal: "Too many password attempts from this address; try again later.")
        decoyHash = try hasher.hash(SecureRandom.token())
    }

    /// `accounts.signUp`: a new password user, signed in. `EMAIL_EXISTS` when the tenant already has the
    /// address (decided by a unique index, so concurrent sign-ups of one address make exactly one account);
    /// `OPERATION_NOT_ALLOWED` when password sign-up is off. `enrollmentRequired` says whether the configuration
    /// in force asks a user without enrolments to enrol a second factor (API §4 rule 5); the tokens then say so.
    public func signUp(
        email rawEmail: String, password: String, displayName: String?, tenantID: String?,
        clientAddress: String? = nil,
        enrollmentRequired: @escaping @Sendable (EffectiveConfig) -> Bool = { _ in false }
    ) async throws -> TokenResult {
        try await database.withPool { pool in
            let config = try await self.configs.forUserMethod(pool, tenantID: tenantID)
            try await self.countPasswordWork(pool, clientAddress: clientAddress)
            guard config.allowPasswordSignup else {
                throw AuthError(.operationNotAllowed, "Password sign-up is disabled.")
            }
            let email = try EmailAddress.normalize(rawEmail)
            try PasswordPolicy.check(password)
            let displayName = try DisplayName.check(displayName)
            let hash = try await self.passwords.hash(password)
            let now = self.clock.now()
            let user = UserRecord(
                userID: try SecureRandom.identifier(), tenantID: tenantID, email: email, emailVerified: false,
                phoneNumber: nil, displayName: displayName, passwordHash: hash, phoneSignIn: false, disabled: false,
                createdAt: now, lastLoginAt: now, tokensValidAfter: Date(timeIntervalSince1970: 0))
            let session = SignInSession(
                userID: user.userID, tenantID: tenantID, authTime: now, provider: "password",
                mfaEnrollmentRequired: enrollmentRequired(config))
            // The user and their first sign-in in one implicit transaction: a sign-up that fails leaves no account
            // without a sign-in behind (a retry would find the address taken).
            var result: TokenResult
            do {
                result = try await self.tokens.issue(
                    pool, session: session, user: user, leading: [UserStore.insertQuery(user)])
            } catch let error as PostgresError {
                throw UserStore.conflict(error)
            }
            result.email = email
            return result
        }
    }

    /// Checks an e-mail and password of a tenant (or the project level) whose configuration the caller has
    /// resolved: the user when they match. Every mismatch is `INVALID_LOGIN_CREDENTIALS`, which never says whether
    /// the account exists; `USER_DISABLED` only after a correct password; too many failures
    /// `TOO_MANY_ATTEMPTS_TRY_LATER`. Nothing is recorded as a sign-in: the caller decides what follows.
    public func checkPassword(
        _ pool: PostgresPool, email rawEmail: String, password: String, tenantID: String?,
        clientAddress: String? = nil
    ) async throws -> UserRecord {
        let invalid = AuthError(.invalidLoginCredentials, "The e-mail address or the password is wrong.")
        guard let email = try? EmailAddress.normalize(rawEmail), PasswordPolicy.lengths.contains(password.count) else {
            throw invalid
        }
        try await countPasswordWork(pool, clientAddress: clientAddress)
        try await LoginThrottle.admit(pool, tenantID: tenantID, email: email, now: clock.now())
        let user = try await UserStore.find(pool, email: email, tenantID: tenantID)
        let matches = try await passwords.verify(password, against: user?.passwordHash ?? decoyHash)
        guard matches, let user, user.passwordHash != nil else { throw invalid }
        try await LoginThrottle.reset(pool, tenantID: tenantID, email: email)
        guard !user.disabled else { throw AuthError(.userDisabled, "The user account has been disabled.") }
        return user
    }

    /// Counts a password checked or set for `clientAddress` (an IP address, after trusted proxies); beyond the
    /// per-client limit `TOO_MANY_ATTEMPTS_TRY_LATER` with `retryAfter`. Unknown clients are not counted.
    private func countPasswordWork(_ pool: PostgresPool, clientAddress: String?) async throws {
        guard let clientAddress else { return }
        try await passwordsPerClient.admit(pool, key: clientAddress, now: clock.now())
    }

    /// `accounts.sendOobCode` with `VERIFY_EMAIL`: mails the signed-in user a link carrying a single-use code
    /// (stored hashed). When delivery finally fails the code is deleted and the call fails with
    /// `DELIVERY_FAILED`. At most 5 such mails per user and 5 per address in an hour (``RateLimit``), then
    /// `TOO_MANY_ATTEMPTS_TRY_LATER` with `retryAfter`. Returns the address mailed.
    public func sendVerificationEmail(
        idToken: String, tenantID: String?, languageCode: String? = nil
    ) async throws
        -> String
    {
        try await database.withPool { pool in
            let config = try await self.configs.forUserMethod(pool, tenantID: tenantID)
            let texts = Texts(languageCode.flatMap(Language.init(tag:)) ?? config.defaultLanguage ?? .en)
            let (_, user) = try await self.tokens.verify(
                pool, idToken: idToken, tenantID: tenantID, acceptingEnrollmentRequired: true)
            guard let address = user.email else {
                throw AuthError(.invalidEmail, "The account has no e-mail address to verify.")
            }
            let now = self.clock.now()
            try await RateLimit.verificationMailsPerUser.admit(pool, key: user.userID, now: now)
            try await RateLimit.verificationMailsPerAddress.admit(pool, key: address.lowercased(), now: now)
            let code = try SecretDigest.make()
            try await pool.query(
                "INSERT INTO oob_codes (code_hash, user_id, kind, email, expires_at) VALUES ($1, $2, $3, $4, $5)",
                [
                    code.digest, user.userID, "VERIFY_EMAIL", address,
                    self.clock.now().addingTimeInterval(Self.oobCodeLifetime),
                ])
            let link = self.link(code: code.secret, tenantID: tenantID)
            let message = EmailMessage(
                to: address, subject: texts("Verify your e-mail address"),
                text: texts(
                    "Follow this link to verify your e-mail address:\n\n{link}\n\n"
                        + "If you did not ask for this, ignore this message.", ["link": link]),
                kind: "verify_email", link: link, tenantId: tenantID, languageCode: texts.language.rawValue)
            do {
                try await self.email.send(message)
            } catch {
                try await pool.query("DELETE FROM oob_codes WHERE code_hash = $1", [code.digest])
                throw error
            }
            return address
        }
    }

    /// How long a password-reset link works.
    public static let passwordResetLifetime: TimeInterval = 3600
    /// Password-reset mails asked for one address (of a tenant, whether or not it has an account) an hour.
    static let resetsPerAddress = RateLimit(
        name: "password_reset_address", limit: 5, window: 3600,
        refusal: "Too many password resets were asked for; try again later.")
    /// Password-reset mails asked for from one client address an hour.
    static let resetsPerClient = RateLimit(
        name: "password_reset_client", limit: 30, window: 3600,
        refusal: "Too many password resets were asked for; try again later.")

    /// `accounts.sendOobCode` with `PASSWORD_RESET`: mails the account of `email` in `tenantID` a link carrying a
    /// single-use code (stored hashed, valid ``passwordResetLifetime``), and answers the normalized address
    /// whether or not it has an account: the mail goes out after the answer, and a failed delivery voids the code
    /// without saying so, so neither the answer nor its timing tells who has an account. 5 asks per address and
    /// 30 per client address an hour (counted for unknown addresses too), then `TOO_MANY_ATTEMPTS_TRY_LATER`.
    public func sendPasswordReset(
        email rawEmail: String, tenantID: String?, clientAddress: String?, languageCode: String? = nil
    ) async throws -> String {
        let email = try EmailAddress.normalize(rawEmail)
        let now = clock.now()
        let mail: (message: EmailMessage, codeDigest: [UInt8])? = try await database.withPool { pool in
            let config = try await self.configs.forUserMethod(pool, tenantID: tenantID)
            let texts = Texts(languageCode.flatMap(Language.init(tag:)) ?? config.defaultLanguage ?? .en)
            try await Self.resetsPerAddress.admit(pool, key: "\(tenantID ?? ""):\(email)", now: now)
            if let clientAddress { try await Self.resetsPerClient.admit(pool, key: clientAddress, now: now) }
            guard let user = try await UserStore.find(pool, email: email, tenantID: tenantID), !user.disabled,
                let address = user.email
            else { return nil }
            let code = try SecretDigest.make()
            try await pool.query(
                "INSERT INTO oob_codes (code_hash, user_id, kind, email, expires_at) VALUES ($1, $2, $3, $4, $5)",
                [
                    code.digest, user.userID, "PASSWORD_RESET", address,
                    now.addingTimeInterval(Self.passwordResetLifetime),
                ])
            var link = "\(self.tokens.issuer)/reset-password?oobCode=\(code.secret)"
            if let tenantID { link += "&tenantId=\(tenantID)" }
            let message = EmailMessage(
                to: address, subject: texts("Reset your password"),
                text: texts(
                    "Follow this link to choose a new password (it works for one hour, once):\n\n{link}\n\n"
                        + "If you did not ask for this, ignore this message: your password stays as it is.",
                    ["link": link]),
                kind: "password_reset", link: link, tenantId: tenantID, languageCode: texts.language.rawValue)
            return (message, code.digest)
        }
        if let mail {
            let database = database
            let sender = self.email
            Task {
                do {
                    try await sender.send(mail.message)
                } catch {
                    _ = try? await database.withPool { pool in
                        try await pool.query("DELETE FROM oob_codes WHERE code_hash = $1", [mail.codeDigest])
                    }
                }
            }
        }
        return email
    }

    /// `accounts.resetPassword`: sets `newPassword` for the account a password-reset code was mailed to, once, and
    /// revokes every token, browser session and pending sign-in of the user in the same transaction (which also
    /// voids the user's other reset codes); the next sign-in still asks for the second factor. `WEAK_PASSWORD`;
    /// `INVALID_OOB_CODE` for an unknown, used or voided code; `SESSION_EXPIRED` for an expired one;
    /// `TENANT_ID_MISMATCH` for another tenant's. Returns the account's address.
    public func resetPassword(oobCode: String, newPassword: String, tenantID: String?) async throws -> String {
        try PasswordPolicy.check(newPassword)
        let digest = try SecretDigest.of(oobCode)
        let hash = try await passwords.hash(newPassword)
        let now = clock.now()
        return try await database.withPool { pool in
            _ = try await self.configs.forUserMethod(pool, tenantID: tenantID)
            let outcome: Result<String, AuthError> = try await pool.transaction { transaction in
                let found = try await transaction.query(
                    """
                    SELECT o.user_id, o.expires_at, u.tenant_id, u.email FROM oob_codes o JOIN users u USING (user_id)
                    WHERE o.code_hash = $1 AND o.kind = 'PASSWORD_RESET' FOR UPDATE OF o
                    """, [digest])
                guard let row = found.rows.first else {
                    return .failure(AuthError(.invalidOOBCode, "The code is invalid or has already been used."))
                }
                guard try row.decode(String?.self, at: 2) == tenantID else {
                    return .failure(AuthError(.tenantIDMismatch, "The code belongs to another tenant."))
                }
                try await transaction.query("DELETE FROM oob_codes WHERE code_hash = $1", [digest])
                guard try row.decode(Date.self, at: 1) > now else {
                    return .failure(AuthError(.sessionExpired, "The code has expired; ask for a new one."))
                }
                let userID = try row.decode(String.self, at: 0)
                try await UserStore.setPasswordHash(transaction, userID: userID, hash)
                try await UserStore.revokeTokens(transaction, userID: userID, now: now)
                return .success(try row.decode(String?.self, at: 3) ?? "")
            }
            return try outcome.get()
        }
    }

    /// `accounts.update` with an `oobCode`: marks the address the code was mailed to as verified, once.
    /// `INVALID_OOB_CODE` for an unknown or used code or when the account's address changed since;
    /// `SESSION_EXPIRED` for an expired one; `TENANT_ID_MISMATCH` (the code is kept) for another tenant's code.
    public func confirmEmail(oobCode: String, tenantID: String?) async throws -> (userID: String, email: String) {
        let digest = try SecretDigest.of(oobCode)
        let now = clock.now()
        return try await database.withPool { pool in
            _ = try await self.configs.forUserMethod(pool, tenantID: tenantID)
            // A used or expired code is deleted whatever the outcome, so the outcome is thrown after the commit.
            let outcome: Result<(userID: String, email: String), AuthError> = try await pool.transaction {
                transaction in
                let found = try await transaction.query(
                    """
                    SELECT o.user_id, o.email, o.expires_at, u.tenant_id, u.email FROM oob_codes o
                    JOIN users u USING (user_id) WHERE o.code_hash = $1 AND o.kind = 'VERIFY_EMAIL' FOR UPDATE OF o
                    """, [digest])
                guard let row = found.rows.first else {
                    return .failure(AuthError(.invalidOOBCode, "The code is invalid or has already been used."))
                }
                guard try row.decode(String?.self, at: 3) == tenantID else {
                    return .failure(AuthError(.tenantIDMismatch, "The code belongs to another tenant."))
                }
                try await transaction.query("DELETE FROM oob_codes WHERE code_hash = $1", [digest])
                guard try row.decode(Date.self, at: 2) > now else {
                    return .failure(AuthError(.sessionExpired, "The code has expired; ask for a new one."))
                }
                let userID = try row.decode(String.self, at: 0)
                let address = try row.decode(String.self, at: 1)
                guard try row.decode(String?.self, at: 4) == address else {
                    return .failure(
                        AuthError(.invalidOOBCode, "The account's e-mail address has changed since the code was sent."))
                }
                try await UserStore.markEmailVerified(transaction, userID: userID)
                return .success((userID, address))
            }
            return try outcome.get()
        }
    }

    /// `accounts.delete`: deletes the signed-in user and everything they own.
    public func delete(idToken: String, tenantID: String?) async throws {
        try await database.withPool { pool in
            _ = try await self.configs.forUserMethod(pool, tenantID: tenantID)
            let (_, user) = try await self.tokens.verify(pool, idToken: idToken, tenantID: tenantID)
            try await UserStore.delete(pool, userID: user.userID)
        }
    }

    /// `accounts.signOut`: ends the sign-in `idToken` belongs to: its refresh tokens stop working and its ID
    /// tokens (this one too) are refused from now on (`TOKEN_EXPIRED`, also for a second sign-out); the user's
    /// other sign-ins go on. ID-token reasons; `INVALID_ID_TOKEN` for a token that names no sign-in (issued before
    /// version 1.1, so at most an hour old).
    public func signOut(idToken: String, tenantID: String?) async throws {
        let now = clock.now()
        try await database.withPool { pool in
            _ = try await self.configs.forUserMethod(pool, tenantID: tenantID)
            let (claims, user) = try await self.tokens.verify(
                pool, idToken: idToken, tenantID: tenantID, acceptingEnrollmentRequired: true)
            guard let familyID = claims.sid else {
                throw AuthError(.invalidIDToken, "This ID token names no sign-in; sign in again to get one that does.")
            }
            try await TokenFamilies.revoke(pool, familyID: familyID, userID: user.userID, now: now)
        }
    }

    /// `token.refresh`.
    public func refresh(refreshToken: String, tenantID: String?) async throws -> TokenResult {
        try await database.withPool { pool in
            _ = try await self.configs.forUserMethod(pool, tenantID: tenantID)
            return try await self.tokens.refresh(pool, refreshToken: refreshToken, tenantID: tenantID)
        }
    }

    private func link(code: String, tenantID: String?) -> String {
        var link = "\(tokens.issuer)/verify-email?oobCode=\(code)"
        if let tenantID { link += "&tenantId=\(tenantID)" }
        return link
    }
}
