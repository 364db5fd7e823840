import TesseraJSON
import TesseraRPC
import Testing

@Test func handlerErrorsPassThroughWithRetryAfter() async throws {
    let reply = try await call(makeDispatcher(), request(id: "2", "test.throttled"))
    #expect(
        reply
            == errorReply(
                id: 2, code: -32000, reason: "TOO_MANY_ATTEMPTS_TRY_LATER", status: "RESOURCE_EXHAUSTED",
                detail: "Try again later.", retryAfter: 30
            )
    )
    let text = try await callRaw(makeDispatcher(), request(id: "2", "test.throttled"))
    let data = #""data":{"reason":"TOO_MANY_ATTEMPTS_TRY_LATER","status":"RESOURCE_EXHAUSTED","retryAfter":30}}}"#
    #expect(text?.hasSuffix(data) == true)
}

@Test func missingReasonsUseMinus32602() async throws {
    let reply = try await call(makeDispatcher(), request("test.missing"))
    #expect(reply == errorReply(id: 1, code: -32602, reason: "MISSING_ID_TOKEN", detail: "idToken is required."))
}

@Test func unexpectedErrorsAreInternalWithoutDetail() async throws {
    let recorder = Recorder()
    let text = try #require(try await callRaw(makeDispatcher(recorder: recorder), request("test.crash")))
    #expect(!text.contains("s3cr3t"))
    #expect(!text.contains("LeakyFailure"))
    #expect(
        text == #"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"INTERNAL","#
            + #""data":{"reason":"INTERNAL","status":"INTERNAL"}}}"#
    )
    #expect(recorder.all.last?.reason == "INTERNAL")
}

@Test func convertibleErrorsAnswerTheirOwnError() async throws {
    let reply = try await call(makeDispatcher(), request("test.domain"))
    #expect(
        reply
            == errorReply(
                id: 1, code: -32000, reason: "USER_NOT_FOUND", status: "NOT_FOUND",
                detail: "There is no user with this id."
            )
    )
}

@Test func decodingErrorsFromHandlersAreInvalidArguments() async throws {
    let reply = try await call(makeDispatcher(), request("test.decodeNested"))
    #expect(reply == errorReply(id: 1, code: -32602, reason: "INVALID_ARGUMENT", detail: "unknown field 'extra'"))
}

@Test func errorCodesFollowTheReason() {
    #expect(RPCError(reason: "INVALID_ARGUMENT", status: .invalidArgument).code == -32602)
    #expect(RPCError(reason: "MISSING_SESSION_INFO", status: .invalidArgument).code == -32602)
    #expect(RPCError(reason: "INVALID_CODE", status: .invalidArgument).code == -32000)
    #expect(RPCError(reason: "QUOTA_EXCEEDED", status: .resourceExhausted, code: -32099).code == -32099)
    #expect(RPCError.internal() == RPCError(reason: "INTERNAL", status: .internal, code: -32603))
    #expect(RPCError.invalidArgument("bad").message == "INVALID_ARGUMENT : bad")
    #expect(RPCError.internal().message == "INTERNAL")
    #expect(RPCError.methodNotFound("x").code == -32601)
    #expect(RPCError.methodNotFound("x").status == .notFound)
    #expect(RPCError.parseError("p").code == -32700)
    #expect(RPCError.invalidRequest("r").code == -32600)
    #expect(
        RPCStatus.allCases.map(\.rawValue) == [
            "INVALID_ARGUMENT", "UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "ALREADY_EXISTS",
            "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED", "UNAVAILABLE", "INTERNAL",
        ])
}
