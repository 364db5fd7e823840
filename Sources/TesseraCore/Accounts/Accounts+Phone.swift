public import FoundationEssentials
import TesseraCrypto

extension Accounts {
    /// The account a proved phone sign-in lands on: the user of `tenantID` with `phoneNumber`, or a new one with
    /// only that number (`isNew`). The account is marked as signing in by phone (its providers list `phone`).
    /// `USER_DISABLED` for a disabled account. Two first sign-ins of one number racing make one account: the
    /// insert yields to the unique index and the loser finds the winner's account.
    public func phoneUser(
        _ db: some SQLRunner, phoneNumber: String, tenantID: String?, now: Date
    ) async throws -> (user: UserRecord, isNew: Bool) {
        let created = UserRecord(
            userID: try SecureRandom.identifier(), tenantID: tenantID, email: nil, emailVerified: false,
            phoneNumber: phoneNumber, displayName: nil, passwordHash: nil, phoneSignIn: true, disabled: false,
            createdAt: now, lastLoginAt: nil, tokensValidAfter: Date(timeIntervalSince1970: 0))
        if try await UserStore.insertUnlessPhoneTaken(db, created) { return (created, true) }
        guard var user = try await UserStore.find(db, phoneNumber: phoneNumber, tenantID: tenantID) else {
            throw AuthError(.phoneNumberExists, "The phone number changed hands during sign-in; try again.")
        }
        guard !user.disabled else { throw AuthError(.userDisabled, "The user account has been disabled.") }
        if !user.phoneSignIn {
            user.phoneSignIn = true
            try await UserStore.markPhoneSignIn(db, userID: user.userID)
        }
        return (user, false)
    }
}
