import TesseraJSON

/// A request object that passed the envelope checks of JSON-RPC 2.0.
struct RPCRequest {
    /// Why an entry is not a valid request, and the id to answer with (the entry's own when that was valid).
    struct Invalid: Error {
        var id: JSONValue
        var error: RPCError
    }

    /// The members a request object may have.
    private static let knownMembers: Set<String> = ["jsonrpc", "id", "method", "params"]

    /// The request's id; nil for a notification (no `id` member). `"id": null` is a request with a null id.
    var id: JSONValue?
    var method: String
    /// The params object or array; nil when absent.
    var params: JSONValue?

    /// Checks an entry: an object with `"jsonrpc": "2.0"`, a string `method`, an optional object or array
    /// `params`, an optional string, number or null `id`, and no other member (a misspelt `param` must not pass
    /// for a call without params).
    static func validate(_ entry: JSONValue) -> Result<RPCRequest, Invalid> {
        guard case .object(let object) = entry else {
            return .failure(Invalid(id: .null, error: .invalidRequest("a request must be an object")))
        }
        var id: JSONValue?
        if let rawID = object["id"] {
            switch rawID {
            case .string, .integer, .double, .null:
                id = rawID
            default:
                return .failure(Invalid(id: .null, error: .invalidRequest("'id' must be a string, a number or null")))
            }
        }
        let answerID = id ?? .null
        guard object["jsonrpc"] == "2.0" else {
            return .failure(Invalid(id: answerID, error: .invalidRequest("'jsonrpc' must be \"2.0\"")))
        }
        guard case .string(let method)? = object["method"] else {
            return .failure(Invalid(id: answerID, error: .invalidRequest("'method' must be a string")))
        }
        let params = object["params"]
        switch params {
        case nil, .object?, .array?:
            break
        default:
            return .failure(Invalid(id: answerID, error: .invalidRequest("'params' must be an object or an array")))
        }
        if object.count > 2 + (id == nil ? 0 : 1) + (params == nil ? 0 : 1) {
            let unknown = object.keys.first { !knownMembers.contains($0) } ?? ""
            return .failure(Invalid(id: answerID, error: .invalidRequest("unknown member '\(unknown)' in the request")))
        }
        return .success(RPCRequest(id: id, method: method, params: params))
    }
}
