/// The grant types of the token endpoint (API §6).
public enum OAuthGrantType: String, Sendable, Equatable, CaseIterable {
    case authorizationCode = "authorization_code"
    case refreshToken = "refresh_token"
    case clientCredentials = "client_credentials"
}
