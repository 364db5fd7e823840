public import FoundationEssentials
import TesseraPostgres

/// A row of `users`: everything the server knows about a user, secrets included. It never leaves the domain
/// layer as is; ``publicView(mfaInfo:)`` is what clients see.
public struct UserRecord: Sendable {
    public var userID: String
    public var tenantID: String?
    public var email: String?
    public var emailVerified: Bool
    public var phoneNumber: String?
    public var displayName: String?
    /// The scrypt PHC string; nil for users without a password.
    public var passwordHash: String?
    /// Whether the user signs in with their phone number as first factor.
    public var phoneSignIn: Bool
    public var disabled: Bool
    public var createdAt: Date
    public var lastLoginAt: Date?
    /// ID tokens issued at or before this second are refused (`users.revokeTokens`, password change, withdraw).
    public var tokensValidAfter: Date

    /// The columns ``init(row:)`` reads, in order, for `SELECT` lists.
    static let columns = """
        user_id, tenant_id, email, email_verified, phone_number, display_name, password_hash, phone_sign_in, \
        disabled, created_at, last_login_at, tokens_valid_after
        """
    /// How many columns ``columns`` names: the index of the first column selected after them.
    static let columnCount = columns.split(separator: ",").count

    /// A record with every column given.
    public init(
        userID: String, tenantID: String?, email: String?, emailVerified: Bool, phoneNumber: String?,
        displayName: String?, passwordHash: String?, phoneSignIn: Bool, disabled: Bool, createdAt: Date,
        lastLoginAt: Date?, tokensValidAfter: Date
    ) {
        self.userID = userID
        self.tenantID = tenantID
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.displayName = displayName
        self.passwordHash = passwordHash
        self.phoneSignIn = phoneSignIn
        self.disabled = disabled
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
        self.tokensValidAfter = tokensValidAfter
    }

    /// Decodes a row selected with ``columns``.
    init(row: PostgresRow) throws(PostgresError) {
        userID = try row.decode(String.self, at: 0)
        tenantID = try row.decode(String?.self, at: 1)
        email = try row.decode(String?.self, at: 2)
        emailVerified = try row.decode(Bool.self, at: 3)
        phoneNumber = try row.decode(String?.self, at: 4)
        displayName = try row.decode(String?.self, at: 5)
        passwordHash = try row.decode(String?.self, at: 6)
        phoneSignIn = try row.decode(Bool.self, at: 7)
        disabled = try row.decode(Bool.self, at: 8)
        createdAt = try row.decode(Date.self, at: 9)
        lastLoginAt = try row.decode(Date?.self, at: 10)
        tokensValidAfter = try row.decode(Date.self, at: 11)
    }

    /// The first factors this user can sign in with, as the API names them.
    public var providers: [String] {
        (passwordHash == nil ? [] : ["password"]) + (phoneSignIn ? ["phone"] : [])
    }

    /// What the API shows of this user, with `mfaInfo` given by the caller.
    public func publicView(mfaInfo: [MFAEnrollment]) -> User {
        User(
            localId: userID, email: email, emailVerified: emailVerified, phoneNumber: phoneNumber,
            displayName: displayName, disabled: disabled, createdAt: RFC3339.string(from: createdAt),
            lastLoginAt: lastLoginAt.map(RFC3339.string(from:)), tenantId: tenantID, providers: providers,
            mfaInfo: mfaInfo)
    }
}
