/// What the generator talks to and with which credentials: the server, its clients, and the users' password.
struct BenchTarget: Sendable {
    /// The public listener's host and port.
    var host: String
    var port: Int
    /// The public client of the native-app cycle and the refresh scenario.
    var publicClientID: String
    /// Its registered redirect URI.
    var redirectURI: String
    /// The confidential client of the `client_credentials` scenario, and its secret.
    var confidentialClientID: String
    var clientSecret: String
    /// The e-mail address of virtual user `index` is `prefix + index + "@example.com"`.
    var emailPrefix: String
    /// Every user's password.
    var password: String
    /// The scope asked for in the cycle.
    var scope = "openid"

    /// The e-mail address of user `index`.
    func email(_ index: Int) -> String { "\(emailPrefix)\(index)@example.com" }
}
