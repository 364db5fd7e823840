import TesseraJSON
import TesseraRPC
import Testing

@Test func discoverReturnsTheOpenRPCDocument() async throws {
    let reply = try #require(try await call(makeDispatcher(), request("rpc.discover")))
    let document = try #require(reply["result"])
    #expect(document["openrpc"] == "1.2.6")
    #expect(document["info"] == ["title": "Toy", "version": "1.0.0"])
    let methods = try #require(document["methods"]?.arrayValue)
    #expect(
        methods.map { $0["name"] } == [
            "test.echo", "test.ping", "test.whoami", "test.invalidCode", "test.throttled", "test.missing",
            "test.crash", "test.domain", "test.decodeNested", "test.signIn", "test.hash", "rpc.discover",
        ]
    )
    let phoneInfo: JSONValue = [
        "type": "object", "properties": ["phoneNumber": ["type": "string"]], "required": ["phoneNumber"],
        "additionalProperties": false,
    ]
    #expect(
        methods[0]
            == [
                "name": "test.echo",
                "summary": "Repeats text.",
                "paramStructure": "by-name",
                "params": [
                    ["name": "text", "required": true, "schema": ["type": "string"]],
                    ["name": "times", "required": false, "schema": ["type": "integer"]],
                    ["name": "info", "required": false, "schema": phoneInfo],
                ],
                "result": [
                    "name": "result",
                    "schema": [
                        "type": "object",
                        "properties": ["text": ["type": "string"], "phoneNumber": ["type": "string"]],
                        "required": ["text"],
                        "additionalProperties": false,
                    ],
                ],
            ]
    )
    #expect(methods[1]["params"] == [])
    #expect(methods[2]["result"]?["schema"] == [:])
    #expect(methods[11]["result"]?["schema"] == ["type": "object"])
    #expect(methods[11]["params"] == [])
}

@Test func discoverTakesNoParams() async throws {
    let reply = try await call(makeDispatcher(), request("rpc.discover", params: #"{"verbose":true}"#))
    #expect(reply == errorReply(id: 1, code: -32602, reason: "INVALID_ARGUMENT", detail: "unknown field 'verbose'"))
    for none in ["[]", "{}"] {
        let empty = try await call(makeDispatcher(), request("rpc.discover", params: none))
        #expect(empty?["result"]?["openrpc"] == "1.2.6")
    }
    let absent = try await call(makeDispatcher(), request("rpc.discover"))
    #expect(absent?["result"]?["openrpc"] == "1.2.6")
}

@Test func tablesListTheirMethods() {
    var table = RPCMethodTable(title: "T", version: "2")
    table.register("a.b", summary: "s", params: RPCNoParams.self, result: RPCNoParams.self) { _, _ in RPCNoParams() }
    #expect(table.methodNames == ["a.b"])
    #expect(table.title == "T")
}

@Test func discoverAnswersTheSameDocumentInABatchAndRefusesParams() async throws {
    let dispatcher = makeDispatcher()
    let alone = try #require(try await call(dispatcher, request("rpc.discover"))?["result"])
    let batch = try #require(
        try await call(
            dispatcher,
            "["
                + [
                    request(id: "1", "rpc.discover"), request(id: #""two""#, "test.ping"),
                    request(id: #""x""#, "rpc.discover"), request(id: "4", "rpc.discover", params: #"{"a":1}"#),
                ]
                .joined(separator: ",") + "]"
        )?.arrayValue)
    #expect(batch.count == 4)
    #expect(batch[0]["id"] == 1 && batch[0]["result"] == alone)
    #expect(batch[1]["id"] == "two" && batch[1]["result"] != nil)
    #expect(batch[2]["id"] == "x" && batch[2]["result"] == alone)
    #expect(batch[3]["id"] == 4 && batch[3]["result"] == nil && batch[3]["error"]?["code"] == -32602)
}
