public import TesseraHTTP
public import TesseraJSON

/// The JSON answers of the OAuth endpoints. Token, revocation and introspection answers carry credentials or
/// their state, so none of them may be stored by a cache (RFC 6749 §5.1).
public enum OAuthResponse {
    /// `object` as `application/json` with `Cache-Control: no-store` and `Pragma: no-cache`.
    public static func json(_ object: JSONObject, status: HTTPStatus = .ok) -> HTTPResponse {
        json(serialized: JSONValue.object(object).serialized(), status: status)
    }

    /// A JSON text already written (by a ``JSONWriter``), sent as ``json(_:status:)`` sends an object.
    public static func json(serialized body: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        var response = HTTPResponse(status: status, body: body)
        response.headers.add(name: "Content-Type", value: "application/json")
        response.headers.add(name: "Cache-Control", value: "no-store")
        response.headers.add(name: "Pragma", value: "no-cache")
        return response
    }
}
