/// An error of an authorization request that is sent back to the client's redirect URI (RFC 6749 §4.1.2.1).
public struct AuthorizationError: Error, Sendable, Equatable {
    /// The `error` code: `invalid_request`, `unsupported_response_type`, `unauthorized_client`, `invalid_scope`,
    /// `access_denied`, `login_required`, `server_error`.
    public var code: String
    /// The `error_description`: one sentence for the developer, never shown to the user as a page.
    public var description: String

    /// An error with its code and description.
    public init(_ code: String, _ description: String) {
        self.code = code
        self.description = description
    }

    /// `invalid_request`.
    public static func invalidRequest(_ description: String) -> AuthorizationError {
        AuthorizationError("invalid_request", description)
    }
}
