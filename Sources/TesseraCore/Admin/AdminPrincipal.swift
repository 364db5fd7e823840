/// The admin key a call was made with, once authenticated: who acts (for the audit log) and what it may reach.
public struct AdminPrincipal: Sendable, Equatable {
    /// The key's public id, recorded as the actor of audit events.
    public let keyID: String
    /// What the key may reach.
    public let scope: AdminScope

    /// A principal for key `keyID` with `scope`.
    public init(keyID: String, scope: AdminScope) {
        self.keyID = keyID
        self.scope = scope
    }

    /// `PERMISSION_DENIED` unless the key has project scope.
    public func requireProject() throws(AuthError) {
        guard scope == .project else {
            throw AuthError(
                .permissionDenied, "This admin key is scoped to one tenant; the method needs project scope.")
        }
    }

    /// `PERMISSION_DENIED` unless the key may reach `tenantID` (nil: the project level, project keys only).
    public func require(tenant tenantID: String?) throws(AuthError) {
        switch (scope, tenantID) {
        case (.project, _):
            return
        case (.tenant(let allowed), let requested?) where requested == allowed:
            return
        default:
            throw AuthError(
                .permissionDenied,
                "This admin key may not reach \(tenantID.map { "tenant \($0)" } ?? "the project level").")
        }
    }
}
