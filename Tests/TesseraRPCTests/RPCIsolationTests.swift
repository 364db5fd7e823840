import TesseraJSON
import TesseraRPC
import Testing

/// Stands for an event loop: an isolation domain that calls the dispatcher.
private actor Loop {
    func handle(_ dispatcher: RPCDispatcher, _ body: String) async -> [UInt8]? {
        await dispatcher.handle(body: Array(body.utf8), context: RPCContext(requestID: "loop"))
    }
}

/// Handlers must run where the dispatcher was called (DESIGN §3: a request never hops threads); a hop would trap.
@Test func handlersRunOnTheCallersExecutor() async throws {
    let loop = Loop()
    var table = RPCMethodTable(title: "Isolation", version: "1")
    table.register("loop.check", summary: "Checks isolation.", params: RPCNoParams.self, result: Pong.self) { _, _ in
        loop.assertIsolated("the handler left the caller's executor")
        return Pong(pong: true)
    }
    let reply = try #require(await loop.handle(RPCDispatcher(methods: table), request("loop.check")))
    #expect(try JSONValue(parsing: reply) == resultReply(id: 1, ["pong": true]))
}
