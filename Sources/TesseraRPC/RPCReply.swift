import TesseraJSON

/// The answer to one request: its id and either a result or an error.
struct RPCReply {
    var id: JSONValue
    var outcome: Result<JSONValue, RPCError>
    /// The result already written as JSON, when the dispatcher keeps it so (`rpc.discover`'s document, which
    /// never changes): written as it is instead of writing the result again.
    var writtenResult: [UInt8]? = nil
}
