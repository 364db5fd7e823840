import TesseraJSON
import TesseraRPC
import Testing

@Test func successEnvelopeIsExact() async throws {
    let dispatcher = makeDispatcher()
    let text = try await callRaw(dispatcher, request("test.echo", params: #"{"text":"hi","times":2}"#))
    #expect(text == #"{"jsonrpc":"2.0","id":1,"result":{"text":"hihi"}}"#)
}

@Test func errorEnvelopeIsExactlyTheContractsExample() async throws {
    let text = try await callRaw(makeDispatcher(), request(id: "7", "test.invalidCode"))
    #expect(
        text == #"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"INVALID_CODE : The verification code is "#
            + #"not valid.","data":{"reason":"INVALID_CODE","status":"INVALID_ARGUMENT"}}}"#
    )
}

@Test(arguments: [#""abc""#, "null", "1.5", "-3", #""""#])
func idsAreEchoedAsGiven(_ id: String) async throws {
    let reply = try await call(makeDispatcher(), request(id: id, "test.ping"))
    #expect(reply == resultReply(id: try JSONValue(parsing: id), ["pong": true]))
}

@Test func handlersSeeTheContext() async throws {
    let reply = try await call(makeDispatcher(), request("test.whoami", params: "{}"))
    #expect(reply == resultReply(id: 1, ["requestID": "req-1", "remote": "192.0.2.1"]))
}

@Test(arguments: ["", " ", "{", #"{"jsonrpc":"2.0","#, "[1,]", #"{"a":1,"a":2}"#, "\u{FEFF}{}"])
func parseErrorsAnswerMinus32700WithNullID(_ body: String) async throws {
    let reply = try #require(try await call(makeDispatcher(), body))
    #expect(reply["id"] == nil as JSONValue)
    #expect(reply["error"]?["code"] == -32700)
    #expect(reply["error"]?["data"] == ["reason": "INVALID_ARGUMENT", "status": "INVALID_ARGUMENT"])
    let message = try #require(reply["error"]?["message"]?.stringValue)
    #expect(message.hasPrefix("INVALID_ARGUMENT : the body is not valid JSON: "))
}

@Test func invalidUTF8IsAParseError() async throws {
    let dispatcher = makeDispatcher()
    let body: [UInt8] =
        Array(#"{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"text":""#.utf8) + [0xFF]
        + Array(#""}}"#.utf8)
    let bytes = try #require(await dispatcher.handle(body: body, context: RPCContext(requestID: "r")))
    let reply = try JSONValue(parsing: bytes)
    #expect(reply["error"]?["code"] == -32700)
    #expect(reply["error"]?["message"] == "INVALID_ARGUMENT : the body is not valid JSON: invalid UTF-8 at offset 63")
}

/// Bodies that are JSON but not valid requests, the id to answer with, and the detail.
private let invalidRequests: [(body: String, id: JSONValue, detail: String)] = [
    ("1", nil, "the body must be a request object or a batch array"),
    (#""x""#, nil, "the body must be a request object or a batch array"),
    ("null", nil, "the body must be a request object or a batch array"),
    (#"{"id":1,"method":"test.ping"}"#, 1, #"'jsonrpc' must be "2.0""#),
    (#"{"jsonrpc":"1.0","id":1,"method":"test.ping"}"#, 1, #"'jsonrpc' must be "2.0""#),
    (#"{"jsonrpc":2.0,"id":"a","method":"test.ping"}"#, "a", #"'jsonrpc' must be "2.0""#),
    (#"{"jsonrpc":"2.0","id":1,"method":5}"#, 1, "'method' must be a string"),
    (#"{"jsonrpc":"2.0","id":1}"#, 1, "'method' must be a string"),
    (#"{"jsonrpc":"2.0","id":1,"method":"test.ping","params":"x"}"#, 1, "'params' must be an object or an array"),
    (#"{"jsonrpc":"2.0","id":1,"method":"test.ping","params":null}"#, 1, "'params' must be an object or an array"),
    (#"{"jsonrpc":"2.0","id":1,"method":"test.ping","params":3}"#, 1, "'params' must be an object or an array"),
    (#"{"jsonrpc":"2.0","id":{"a":1},"method":"test.ping"}"#, nil, "'id' must be a string, a number or null"),
    (#"{"jsonrpc":"2.0","id":[1],"method":"test.ping"}"#, nil, "'id' must be a string, a number or null"),
    (#"{"jsonrpc":"2.0","id":true,"method":"test.ping"}"#, nil, "'id' must be a string, a number or null"),
    (#"{"jsonrpc":"2.0","id":1,"method":"test.ping","param":{}}"#, 1, "unknown member 'param' in the request"),
    (#"{"jsonrpc":"2.0","method":"test.ping","extra":1}"#, nil, "unknown member 'extra' in the request"),
    (#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#, nil, "'method' must be a string"),
    ("{}", nil, #"'jsonrpc' must be "2.0""#),
]

@Test(arguments: invalidRequests.indices)
func invalidRequestsAnswerMinus32600(_ index: Int) async throws {
    let (body, id, detail) = invalidRequests[index]
    let reply = try await call(makeDispatcher(), body)
    #expect(reply == errorReply(id: id, code: -32600, reason: "INVALID_ARGUMENT", detail: detail), "\(body)")
}

@Test func unknownMethodAnswersMinus32601() async throws {
    let reply = try await call(makeDispatcher(), request(id: "3", "accounts.nope"))
    #expect(
        reply
            == errorReply(
                id: 3, code: -32601, reason: "METHOD_NOT_FOUND", status: "NOT_FOUND",
                detail: "no method named 'accounts.nope'"
            )
    )
    let long = String(repeating: "x", count: 500)
    let longReply = try await call(makeDispatcher(), request("\(long)"))
    let message = try #require(longReply?["error"]?["message"]?.stringValue)
    #expect(message.count < 150)
}

@Test func notificationsAreNeverAnswered() async throws {
    let recorder = Recorder()
    let dispatcher = makeDispatcher(recorder: recorder)
    #expect(try await callRaw(dispatcher, request(id: nil, "test.ping")) == nil)
    #expect(try await callRaw(dispatcher, request(id: nil, "test.nope")) == nil)
    #expect(try await callRaw(dispatcher, request(id: nil, "test.echo", params: #"{"txt":"a"}"#)) == nil)
    #expect(try await callRaw(dispatcher, request(id: nil, "test.echo", params: "[1]")) == nil)
    #expect(try await callRaw(dispatcher, request(id: nil, "test.throttled")) == nil)
    #expect(try await callRaw(dispatcher, request(id: nil, "test.crash")) == nil)
    #expect(recorder.runCount == 2)
    #expect(recorder.all.count == 6)
}

@Test func nullIDIsARequestNotANotification() async throws {
    let reply = try await call(makeDispatcher(), request(id: "null", "test.nope"))
    #expect(reply?["id"] == nil as JSONValue)
    #expect(reply?["error"]?["code"] == -32601)
}

@Test func observerHearsEveryCall() async throws {
    let recorder = Recorder()
    let dispatcher = makeDispatcher(recorder: recorder)
    _ = try await callRaw(dispatcher, request("test.ping"))
    _ = try await callRaw(dispatcher, request("test.invalidCode"))
    _ = try await callRaw(dispatcher, request("no.such"))
    _ = try await callRaw(dispatcher, "[1]")
    _ = try await callRaw(dispatcher, "{")
    let records = recorder.all
    #expect(records.map(\.method) == ["test.ping", "test.invalidCode", "(unknown)", "(invalid)", "(invalid)"])
    #expect(records.map(\.reason) == [nil, "INVALID_CODE", "METHOD_NOT_FOUND", "INVALID_ARGUMENT", "INVALID_ARGUMENT"])
    #expect(records.allSatisfy { $0.duration >= .zero })
}
