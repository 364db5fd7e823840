import TesseraJSON

/// The answer to one request: its id and either a result or an error.
struct RPCReply {
    var id: JSONValue
    var outcome: Result<JSONValue, RPCError>
}
