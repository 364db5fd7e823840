import TesseraJSON
import TesseraRPC
import Testing

/// Params and the INVALID_ARGUMENT detail each must produce for `test.echo`.
private let badEchoParams: [(params: String?, detail: String)] = [
    (#"{"text":"a","textt":"b"}"#, "unknown field 'textt'"),
    (#"{"text":"a","info":{"phoneNumber":"+1","phonNumber":"+1"}}"#, "unknown field 'info.phonNumber'"),
    (#"{"text":"a","times":"2"}"#, "field 'times' must be an integer"),
    (#"{"text":"a","times":2.5}"#, "field 'times' must be an integer"),
    (#"{"text":"a","times":2.0}"#, "field 'times' must be an integer"),
    (#"{"text":5}"#, "field 'text' must be a string"),
    (#"{"text":null}"#, "field 'text' must be a string"),
    (#"{"text":"a","info":"+1"}"#, "field 'info' must be an object"),
    (#"{"text":"a","info":{}}"#, "missing field 'info.phoneNumber'"),
    ("{}", "missing field 'text'"),
    (nil, "missing field 'text'"),
    (#"["a"]"#, "params must be an object of named params; positional params are not supported"),
    ("[]", "params must be an object of named params; positional params are not supported"),
    (#"{"text":"a\u0000b"}"#, "params.text must not contain NUL characters (\\u0000)"),
    (
        #"{"text":"a","info":{"phoneNumber":"+1\u0000"}}"#,
        "params.info.phoneNumber must not contain NUL characters (\\u0000)"
    ),
    (#"{"text":"a","x\u0000":1}"#, "params (a member name) must not contain NUL characters (\\u0000)"),
]

@Test(arguments: badEchoParams.indices)
func badParamsAnswerMinus32602(_ index: Int) async throws {
    let (params, detail) = badEchoParams[index]
    let recorder = Recorder()
    let reply = try await call(makeDispatcher(recorder: recorder), request(id: "9", "test.echo", params: params))
    #expect(reply == errorReply(id: 9, code: -32602, reason: "INVALID_ARGUMENT", detail: detail))
    #expect(recorder.runCount == 0)
}

@Test func goodParamsReachTheHandler() async throws {
    let reply = try await call(
        makeDispatcher(), request("test.echo", params: #"{"text":"a","times":3,"info":{"phoneNumber":"+1"}}"#)
    )
    #expect(reply == resultReply(id: 1, ["text": "aaa", "phoneNumber": "+1"]))
}

@Test(arguments: [nil, "{}", "[]"])
func noParamsMethodsAcceptAbsentEmptyObjectOrEmptyArray(_ params: String?) async throws {
    let reply = try await call(makeDispatcher(), request("test.ping", params: params))
    #expect(reply == resultReply(id: 1, ["pong": true]))
}

@Test func noParamsMethodsRejectAnything() async throws {
    let member = try await call(makeDispatcher(), request("test.ping", params: #"{"x":1}"#))
    #expect(member == errorReply(id: 1, code: -32602, reason: "INVALID_ARGUMENT", detail: "unknown field 'x'"))
    let positional = try await call(makeDispatcher(), request("test.ping", params: "[1]"))
    #expect(positional?["error"]?["code"] == -32602)
}

@Test func paramsTypesMayNameMoreSpecificReasons() async throws {
    let reply = try await call(makeDispatcher(), request("test.signIn", params: "{}"))
    #expect(
        reply
            == errorReply(
                id: 1, code: -32602, reason: "MISSING_MFA_PENDING_CREDENTIAL",
                detail: "missing field 'mfaPendingCredential'"
            )
    )
    let other = try await call(makeDispatcher(), request("test.signIn", params: #"{"mfaPendingCredential":1}"#))
    #expect(
        other
            == errorReply(
                id: 1, code: -32602, reason: "INVALID_ARGUMENT", detail: "field 'mfaPendingCredential' must be a string"
            )
    )
}
