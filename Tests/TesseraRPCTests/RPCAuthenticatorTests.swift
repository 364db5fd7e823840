import TesseraHTTP
import TesseraJSON
import TesseraRPC
import Testing

/// A table whose authenticator admits only `Authorization: let-me-in`, and one method that reports its principal.
private func guardedDispatcher() -> RPCDispatcher {
    var table = RPCMethodTable(title: "Guarded", version: "1")
    table.authenticator = { context in
        guard context.headers["Authorization"] == "let-me-in" else {
            throw RPCError(reason: "UNAUTHENTICATED", status: .unauthenticated, detail: "no entry")
        }
        var context = context
        context.principal = "admin-7"
        return context
    }
    table.register("test.whoami", summary: "Names the caller.", params: RPCNoParams.self, result: String.self) {
        _, context in
        context.principal as? String ?? "nobody"
    }
    return RPCDispatcher(methods: table)
}

private func send(_ body: String, authorization: String?) async throws -> JSONValue {
    var headers = HTTPHeaders()
    if let authorization { headers.add(name: "Authorization", value: authorization) }
    let context = RPCContext(requestID: "req-1", headers: headers)
    let reply = try #require(await guardedDispatcher().handle(body: Array(body.utf8), context: context))
    return try JSONValue(parsing: String(decoding: reply, as: UTF8.self))
}

@Test func theAuthenticatorRunsBeforeParamsAreRead() async throws {
    let refused = errorReply(
        id: 1, code: -32000, reason: "UNAUTHENTICATED", status: "UNAUTHENTICATED", detail: "no entry")
    #expect(try await send(request("test.whoami"), authorization: nil) == refused)
    #expect(try await send(request("test.whoami", params: #"{"junk":1}"#), authorization: "wrong") == refused)
    #expect(try await send(request("test.whoami"), authorization: "let-me-in") == resultReply(id: 1, "admin-7"))
}

@Test func discoveryStaysOpen() async throws {
    let reply = try await send(request("rpc.discover"), authorization: nil)
    #expect(reply.objectValue?["result"]?.objectValue?["openrpc"] != nil)
}
