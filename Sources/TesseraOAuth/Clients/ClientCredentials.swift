import TesseraCrypto
public import TesseraHTTP

/// How a client identified itself on a token, revocation or introspection request (RFC 6749 §2.3):
/// `client_secret_basic` (id and secret form-urlencoded inside HTTP Basic), `client_secret_post` (`client_id` and
/// `client_secret` in the form), or `none` (a public client's `client_id` alone).
public struct ClientCredentials: Sendable, Equatable {
    /// The client authentication methods (RFC 8414 names).
    public enum Method: String, Sendable, Equatable {
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
        case none
    }

    public var clientID: String
    /// The secret presented, nil for `none`.
    public var secret: String?
    public var method: Method

    /// A client identification given member by member.
    public init(clientID: String, secret: String?, method: Method) {
        self.clientID = clientID
        self.secret = secret
        self.method = method
    }

    /// The credentials of `request`. `invalid_client` when the `Authorization` header is not a well-formed Basic
    /// credential, when Basic and `client_secret` are both used, when the form's `client_id` differs from
    /// Basic's, or when no client is named at all.
    public init(_ request: HTTPRequest, form: OAuthForm) throws(OAuthError) {
        if let authorization = request.headers["Authorization"] {
            let (clientID, secret) = try Self.basic(authorization)
            guard form["client_secret"] == nil else {
                throw OAuthError(.invalidClient, "use one client authentication method, not Basic and client_secret")
            }
            if let formID = form["client_id"], formID != clientID {
                throw OAuthError(.invalidClient, "client_id differs from the Basic credentials")
            }
            self.init(clientID: clientID, secret: secret, method: .clientSecretBasic)
        } else if let clientID = form["client_id"] {
            let secret = form["client_secret"]
            self.init(clientID: clientID, secret: secret, method: secret == nil ? .none : .clientSecretPost)
        } else {
            throw OAuthError(.invalidClient, "client authentication is missing: send client_id (and the secret)")
        }
    }

    /// `client` when these credentials authenticate it: a public client presents no secret, a confidential
    /// client its secret (compared in constant time). Otherwise `invalid_client`, saying as little as possible.
    public func authenticate(_ client: OAuthClient?) throws(OAuthError) -> OAuthClient {
        guard let client else { throw OAuthError(.invalidClient, "client authentication failed") }
        switch client.type {
        case .public:
            guard secret == nil, method == .none else {
                throw OAuthError(.invalidClient, "a public client has no secret; send client_id alone")
            }
        case .confidential:
            guard let secret, OAuthClients.checkSecret(secret, of: client) else {
                throw OAuthError(.invalidClient, "client authentication failed")
            }
        }
        return client
    }

    /// The digest of the secret presented, for the database to repeat the check inside a grant's statement.
    func secretDigest() throws(OAuthError) -> [UInt8]? {
        guard let secret else { return nil }
        do { return try Digest.sha256(secret) } catch { throw OAuthError(.serverError, "cannot hash: \(error)") }
    }

    /// The id and secret of an `Authorization: Basic` value, each form-urlencoded (RFC 6749 §2.3.1). Read from the
    /// header's bytes, copied once and then read in place (a string's views cost tens of instructions a byte): the
    /// scheme compared without folding a copy, spaces dropped from the credentials only when they hold any, each
    /// half decoded from the decoded bytes in place.
    private static func basic(_ authorization: String) throws(OAuthError) -> (String, String) {
        let space = UInt8(ascii: " ")
        let value = Array(authorization.utf8)
        let schemeStart = value.firstIndex { $0 != space } ?? value.endIndex
        guard let schemeEnd = value[schemeStart...].firstIndex(of: space),
            value[schemeStart..<schemeEnd].elementsEqual("basic".utf8, by: { $0 | 0x20 == $1 }),
            schemeEnd + 1 < value.endIndex
        else { throw OAuthError(.invalidClient, "the Authorization header must use the Basic scheme") }
        var encoded = value[(schemeEnd + 1)...]
        if encoded.contains(space) { encoded = ArraySlice(encoded.filter { $0 != space }) }
        // Each half is checked as UTF-8 when it is decoded: split at an ASCII colon, the whole is UTF-8 exactly when
        // both halves are.
        guard let decoded = try? Base64.decode(utf8: encoded), let colon = decoded.firstIndex(of: UInt8(ascii: ":"))
        else {
            throw OAuthError(.invalidClient, "the Basic credentials are malformed")
        }
        guard let clientID = try? PercentEncoding.decode(bytes: decoded[..<colon], plusAsSpace: true),
            let secret = try? PercentEncoding.decode(bytes: decoded[(colon + 1)...], plusAsSpace: true)
        else { throw OAuthError(.invalidClient, "the Basic credentials are not form-urlencoded") }
        guard !clientID.isEmpty, !secret.isEmpty else {
            throw OAuthError(.invalidClient, "the Basic credentials need a client id and a secret")
        }
        return (clientID, secret)
    }
}
