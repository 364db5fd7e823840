import TesseraJSON

/// The JSON-RPC 2.0 envelope of the admin CLI's calls (API §2): the request body it sends and what it makes of
/// the reply.
enum AdminRPCEnvelope {
    /// `{"jsonrpc":"2.0","id":…,"method":…,"params":{…}}`.
    static func requestBody(for call: AdminCall, id: Int) -> [UInt8] {
        let request: JSONValue = [
            "jsonrpc": "2.0", "id": .integer(Int64(id)), "method": .string(call.method), "params": .object(call.params),
        ]
        return request.serialized()
    }

    /// The `result` of a reply. Throws the reply's JSON-RPC error as ``AdminFailure/rpc(reason:message:)`` (even
    /// under an HTTP error status), and anything that is not a JSON-RPC reply as
    /// ``AdminFailure/unexpectedAnswer(url:detail:)``, naming `url`.
    static func result(status: Int, body: [UInt8], url: String) throws(AdminFailure) -> JSONValue {
        let reply = try? JSONValue(parsing: body)
        if let error = reply?["error"], reply?["jsonrpc"] == "2.0" {
            let reason = error["data"]?["reason"]?.stringValue
            let code = error["code"]?.intValue.map(String.init) ?? "?"
            throw .rpc(reason: reason, message: error["message"]?.stringValue ?? "JSON-RPC error \(code)")
        }
        guard status == 200 else {
            throw .unexpectedAnswer(url: url, detail: "HTTP \(status)\(summary(of: body))")
        }
        guard let reply else { throw .unexpectedAnswer(url: url, detail: "the reply is not JSON") }
        guard reply["jsonrpc"] == "2.0", let result = reply["result"] else {
            throw .unexpectedAnswer(url: url, detail: "the reply is not a JSON-RPC 2.0 response")
        }
        return result
    }

    /// `: <first line of the body>`, at most 200 characters, or nothing for an empty body.
    private static func summary(of body: [UInt8]) -> String {
        let firstLine =
            String(decoding: body.prefix(400), as: UTF8.self)
            .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = firstLine.trimmingPrefix(while: \.isWhitespace)
        return trimmed.isEmpty ? "" : ": " + String(trimmed.prefix(200))
    }
}
