import FoundationEssentials

/// A completed sign-in of the router (a `token_families` row of the JSON-RPC API): who signed in, when, and with
/// which factors. A browser session rests on one, and codes are issued from it.
struct SignInFamily: Sendable, Equatable {
    static let columns = """
        f.family_id, f.user_id, u.tenant_id, f.auth_time, f.sign_in_provider, f.second_factor, f.second_factor_id
        """

    let familyID: String
    let userID: String
    let tenantID: String?
    let authTime: Date
    /// The first factor: `password` or `phone`.
    let provider: String
    /// The second factor passed (`totp`, `phone`), if any.
    let secondFactor: String?
    let secondFactorID: String?
}
