public import TesseraHTTP
import TesseraJSON

/// An error answer of an OAuth endpoint (RFC 6749 §5.2): the status, the `error` code and a description for the
/// developer. `invalid_client` is 401 with a `WWW-Authenticate: Basic` challenge; server failures are 500 or 503;
/// everything else is 400.
public struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `error` member.
    public var code: OAuthErrorCode
    /// The `error_description` member: what is wrong, never a secret.
    public var detail: String

    /// An error with `code` saying `detail`.
    public init(_ code: OAuthErrorCode, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// The HTTP status of the answer.
    public var status: HTTPStatus {
        switch code {
        case .invalidClient: .unauthorized
        case .serverError: .internalServerError
        case .temporarilyUnavailable: .serviceUnavailable
        default: .badRequest
        }
    }

    /// `code: detail`.
    public var description: String { "\(code.rawValue): \(detail)" }

    /// The JSON answer, with `Cache-Control: no-store`. A 401 always carries `WWW-Authenticate: Basic
    /// realm="tessera"` (RFC 9110 §15.5.2 asks it of every 401; RFC 6749 §5.2 of every failed Basic attempt).
    public var response: HTTPResponse {
        var response = OAuthResponse.json(
            ["error": .string(code.rawValue), "error_description": .string(detail)], status: status)
        if code == .invalidClient {
            response.headers.add(name: "WWW-Authenticate", value: #"Basic realm="tessera", error="invalid_client""#)
        }
        return response
    }
}
