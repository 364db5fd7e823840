import TesseraJSON

/// Writes response envelopes straight into bytes, in the member order of API §2:
/// `{"jsonrpc":"2.0","id":…,"result":…}` and
/// `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…,"data":{"reason":…,"status":…,"retryAfter":…}}}`.
struct RPCResponseWriter {
    private var json = JSONWriter(reservingCapacity: 512)

    var bytes: [UInt8] { json.bytes }

    mutating func beginBatch() { json.writeRaw("[") }
    mutating func separate() { json.writeRaw(",") }
    mutating func endBatch() { json.writeRaw("]") }

    mutating func write(_ reply: RPCReply) {
        json.writeRaw(#"{"jsonrpc":"2.0","id":"#)
        json.write(reply.id)
        switch reply.outcome {
        case .success(let result):
            json.writeRaw(#","result":"#)
            if let written = reply.writtenResult { json.writeWritten(written) } else { json.write(result) }
            json.writeRaw("}")
        case .failure(let error):
            json.writeRaw(#","error":{"code":"#)
            json.writeInteger(Int64(error.code))
            json.writeRaw(#","message":"#)
            json.writeString(error.message)
            json.writeRaw(#","data":{"reason":"#)
            json.writeString(error.reason)
            json.writeRaw(#","status":"#)
            json.writeString(error.status.rawValue)
            if let retryAfter = error.retryAfter {
                json.writeRaw(#","retryAfter":"#)
                json.writeInteger(Int64(retryAfter))
            }
            json.writeRaw("}}}")
        }
    }
}
