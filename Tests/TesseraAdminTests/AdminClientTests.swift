import Logging
import Synchronization
import TesseraHTTP
import TesseraJSON
import TesseraLoop
import Testing

@testable import tessera

/// What the fake admin listener saw: the Authorization field and the JSON-RPC request of each call.
private final class SeenRequests: Sendable {
    private let storage = Mutex<[(authorization: String, request: JSONValue)]>([])
    func add(_ authorization: String, _ request: JSONValue) { storage.withLock { $0.append((authorization, request)) } }
    var all: [(authorization: String, request: JSONValue)] { storage.withLock { $0 } }
}

/// An HTTPServer answering `POST /rpc`: `tenants.get` of `t1` succeeds, anything else is `TENANT_NOT_FOUND`.
private func fakeListener(seen: SeenRequests) -> HTTPRouter {
    var router = HTTPRouter()
    router.on(
        .post, "/rpc",
        immediate: { request in
            let call = (try? JSONValue(parsing: request.body)) ?? .null
            seen.add(request.headers["Authorization"] ?? "", call)
            let reply: JSONValue =
                call["params"]?["tenantId"] == "t1"
                ? ["jsonrpc": "2.0", "id": call["id"] ?? nil, "result": ["tenantId": "t1", "displayName": "Acme"]]
                : [
                    "jsonrpc": "2.0", "id": call["id"] ?? nil,
                    "error": [
                        "code": -32000, "message": "TENANT_NOT_FOUND : No such tenant.",
                        "data": ["reason": "TENANT_NOT_FOUND", "status": "NOT_FOUND"],
                    ],
                ]
            return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: reply.serialized())
        })
    return router
}

@Suite struct AdminClientTests {
    @Test func callsCarryTheKeyAndNumberedRequestsAndErrorsBecomeFailures() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let seen = SeenRequests()
        let server = HTTPServer(
            name: "fake-admin", loops: group.loops, host: "127.0.0.1", port: 0, router: fakeListener(seen: seen),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try await server.start()
        let url = "http://127.0.0.1:\(server.port)"
        let settings = AdminSettings(url: url, endpoint: url + "/rpc", key: "tsk_test", timeout: .seconds(2))
        let client = try AdminClient(settings: settings, printsJSON: false, group: group)

        let tenant = try await client.call(.getTenant("t1"))
        var failure: AdminFailure?
        do {
            _ = try await client.call(.getTenant("t9"))
        } catch {
            failure = error
        }
        await server.shutdown(gracePeriod: .seconds(1))
        group.shutdown()

        #expect(tenant == ["tenantId": "t1", "displayName": "Acme"])
        #expect(failure == .rpc(reason: "TENANT_NOT_FOUND", message: "TENANT_NOT_FOUND : No such tenant."))
        #expect(seen.all.map(\.authorization) == ["Bearer tsk_test", "Bearer tsk_test"])
        #expect(
            seen.all.map(\.request) == [
                ["jsonrpc": "2.0", "id": 1, "method": "tenants.get", "params": ["tenantId": "t1"]],
                ["jsonrpc": "2.0", "id": 2, "method": "tenants.get", "params": ["tenantId": "t9"]],
            ])
    }

    @Test func anUnreachableListenerIsNamedInTheFailure() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let port = try await group.loops[0].submit {
            let listener = try TCPListener(loop: group.loops[0], host: "127.0.0.1", port: 0) { _ in }
            defer { listener.close() }
            return listener.localPort
        }
        let url = "http://127.0.0.1:\(port)"
        let settings = AdminSettings(url: url, endpoint: url + "/rpc", key: "k", timeout: .seconds(2))
        let client = try AdminClient(settings: settings, printsJSON: false, group: group)
        var failure: AdminFailure?
        do {
            _ = try await client.call(.getConfig())
        } catch {
            failure = error
        }
        group.shutdown()
        #expect(failure == .unreachable(url: url, detail: "connection refused by 127.0.0.1:\(port)"))
        let expected = "cannot reach admin listener at \(url): connection refused by 127.0.0.1:\(port)"
        #expect(failure?.description == expected)
    }
}
