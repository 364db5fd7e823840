/// What an admin key may reach (API §5): `project` everything; `tenant:<id>` only that tenant, its users and its
/// OAuth clients.
public enum AdminScope: Sendable, Hashable, CustomStringConvertible {
    case project
    case tenant(String)

    /// Parses `project` or `tenant:<id>`; anything else is `INVALID_ARGUMENT`.
    public init(parsing text: String) throws(AuthError) {
        if text == "project" {
            self = .project
        } else if text.hasPrefix("tenant:"), text.count > "tenant:".count {
            self = .tenant(String(text.dropFirst("tenant:".count)))
        } else {
            throw AuthError(.invalidArgument, "scope must be \"project\" or \"tenant:<tenantId>\"")
        }
    }

    /// `project` or `tenant:<id>`.
    public var description: String {
        switch self {
        case .project: "project"
        case .tenant(let id): "tenant:\(id)"
        }
    }
}
