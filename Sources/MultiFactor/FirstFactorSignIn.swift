import FoundationEssentials
public import TesseraCore
import TesseraPostgres

/// The password first factor and the account view of API §3: `accounts.signUp`, `accounts.signInWithPassword` and
/// `accounts.lookup`. It checks the first factor (through ``Accounts``) and hands what follows to the router, which
/// owns the second factor (``MultiFactorRouter/completeFirstFactor(_:user:provider:config:authTime:)``); phone
/// sign-in is the other first factor (`PhoneSignIn`, which hands over the same way).
///
/// A value over the router's services: make one where it is needed.
public struct FirstFactorSignIn: Sendable {
    let router: MultiFactorRouter

    /// The first factor of the users that `router` takes to their second factor.
    public init(router: MultiFactorRouter) {
        self.router = router
    }

    /// `accounts.signUp`: a new password user, signed in; under `MANDATORY` its tokens ask it to enrol.
    /// `clientAddress` (after trusted proxies) counts against the per-client password limit.
    public func signUp(
        email: String, password: String, displayName: String?, tenantID: String?, clientAddress: String? = nil
    ) async throws -> TokenResult {
        let registry = try await router.factors()
        return try await router.accounts.signUp(
            email: email, password: password, displayName: displayName, tenantID: tenantID,
            clientAddress: clientAddress,
            enrollmentRequired: { MultiFactorRouter.enrollmentRequired($0, registry) })
    }

    /// `accounts.signInWithPassword`: tokens, or an MFA challenge when the user has a usable enrolment.
    /// `clientAddress` (after trusted proxies) counts against the per-client password limit.
    public func signInWithPassword(
        email: String, password: String, tenantID: String?, clientAddress: String? = nil
    ) async throws -> SignInOutcome {
        let router = router
        return try await router.database.withPool { pool in
            let config = try await router.configs.forUserMethod(pool, tenantID: tenantID)
            let user = try await router.accounts.checkPassword(
                pool, email: email, password: password, tenantID: tenantID, clientAddress: clientAddress)
            return try await router.completeFirstFactor(pool, user: user, provider: "password", config: config)
        }
    }

    /// `accounts.lookup`: the signed-in user, listing the enrolments of enabled factors only (the others are
    /// hidden until their factor is enabled again, API §4 rule 4).
    public func lookup(idToken: String, tenantID: String?) async throws -> User {
        let router = router
        return try await router.database.withPool { pool in
            let config = try await router.configs.forUserMethod(pool, tenantID: tenantID)
            let (_, user) = try await router.tokens.verify(
                pool, idToken: idToken, tenantID: tenantID, acceptingEnrollmentRequired: true)
            let usable = try await router.usableEnrollments(pool, userID: user.userID, config: config)
            return user.publicView(mfaInfo: usable.map { router.view($0.0, of: $0.1, masked: false) })
        }
    }
}
