import TesseraJSON
import TesseraRPC
import Testing

@Test func emptyBatchIsOneInvalidRequest() async throws {
    let reply = try await call(makeDispatcher(), "[]")
    #expect(
        reply
            == errorReply(
                id: nil, code: -32600, reason: "INVALID_ARGUMENT", detail: "a batch must hold at least one request"
            )
    )
}

@Test func batchOfNonObjectsAnswersEachEntry() async throws {
    let reply = try await call(makeDispatcher(), #"[1, "x", null]"#)
    let entry = errorReply(id: nil, code: -32600, reason: "INVALID_ARGUMENT", detail: "a request must be an object")
    #expect(reply == [entry, entry, entry])
}

@Test func mixedBatchAnswersRequestsInOrder() async throws {
    let recorder = Recorder()
    let body =
        "["
        + [
            request(id: "1", "test.echo", params: #"{"text":"a"}"#),
            request(id: nil, "test.ping"),
            "5",
            request(id: #""b""#, "test.unknown"),
            request(id: nil, "test.unknown"),
            request(id: "3", "test.throttled"),
            request(id: nil, "test.echo", params: #"{"bad":1}"#),
            request(id: "4", "test.ping", params: "[]"),
        ].joined(separator: ",") + "]"
    let reply = try await call(makeDispatcher(recorder: recorder), body)
    let expected: JSONValue = [
        resultReply(id: 1, ["text": "a"]),
        errorReply(id: nil, code: -32600, reason: "INVALID_ARGUMENT", detail: "a request must be an object"),
        errorReply(
            id: "b", code: -32601, reason: "METHOD_NOT_FOUND", status: "NOT_FOUND",
            detail: "no method named 'test.unknown'"
        ),
        errorReply(
            id: 3, code: -32000, reason: "TOO_MANY_ATTEMPTS_TRY_LATER", status: "RESOURCE_EXHAUSTED",
            detail: "Try again later.", retryAfter: 30
        ),
        resultReply(id: 4, ["pong": true]),
    ]
    #expect(reply == expected)
    #expect(reply?[0]?["id"] == 1)
    #expect(reply?[4]?["id"] == 4)
    #expect(recorder.runCount == 4)
}

@Test func allNotificationBatchHasNoReply() async throws {
    let recorder = Recorder()
    let body = "[" + [request(id: nil, "test.ping"), request(id: nil, "test.nope")].joined(separator: ",") + "]"
    #expect(try await callRaw(makeDispatcher(recorder: recorder), body) == nil)
    #expect(recorder.runCount == 1)
}

@Test func batchesOverTheLimitAreOneError() async throws {
    let hundred = "[" + (0..<100).map { request(id: "\($0)", "test.ping") }.joined(separator: ",") + "]"
    let reply = try await call(makeDispatcher(), hundred)
    #expect(reply?.arrayValue?.count == 100)
    #expect(reply?[99]?["id"] == 99)
    let tooMany = "[" + (0..<101).map { request(id: "\($0)", "test.ping") }.joined(separator: ",") + "]"
    let recorder = Recorder()
    let refused = try await call(makeDispatcher(recorder: recorder), tooMany)
    #expect(
        refused
            == errorReply(
                id: nil, code: -32600, reason: "INVALID_ARGUMENT", detail: "a batch holds at most 100 requests"
            )
    )
    #expect(recorder.runCount == 0)
    let small = try await call(makeDispatcher(maxBatchSize: 2), "[1,2,3]")
    #expect(small?["error"]?["message"] == "INVALID_ARGUMENT : a batch holds at most 2 requests")
}

@Test func aBatchHoldsOneCallThatHashesAPassword() async throws {
    // Before, a batch of 100 sign-ins took 100 scrypt jobs in one request.
    let body =
        "["
        + [
            request(id: "1", "test.hash"), request(id: "2", "test.ping"), request(id: "3", "test.hash"),
            request(id: nil, "test.hash"),
        ].joined(separator: ",") + "]"
    let reply = try await call(makeDispatcher(), body)
    let refused = errorReply(
        id: 3, code: -32600, reason: "INVALID_ARGUMENT",
        detail: "a batch may hold 1 call that checks or sets a password; send test.hash on its own")
    #expect(reply == [resultReply(id: 1, ["pong": true]), resultReply(id: 2, ["pong": true]), refused])
    // Alone, each is answered.
    #expect(try await call(makeDispatcher(), request(id: "9", "test.hash")) == resultReply(id: 9, ["pong": true]))
}
