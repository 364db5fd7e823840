import TesseraHTTP
import TesseraJSON
import TesseraPostgres
import TesseraRPC
import Testing

@testable import TesseraServer

@Suite struct PostgresErrorRPCTests {
    private func call(throwing error: PostgresError) async throws -> JSONValue {
        var table = RPCMethodTable(title: "test", version: "1")
        table.register(
            "db.fail", summary: "Throws a database error.", params: RPCNoParams.self, result: JSONObject.self
        ) {
            _, _ in throw error
        }
        let dispatcher = RPCDispatcher(methods: table)
        let body = Array(#"{"jsonrpc":"2.0","id":1,"method":"db.fail"}"#.utf8)
        let reply = try #require(await dispatcher.handle(body: body, context: RPCContext(requestID: "t")))
        return try JSONParser().parse(reply)
    }

    @Test(arguments: [PostgresError.Kind.unavailable, .timeout])
    func aDatabaseThatCannotServeForNowIsUnavailableAndLeaksNothing(kind: PostgresError.Kind) async throws {
        let reply = try await call(throwing: PostgresError(kind, message: "socket /secret/path failed"))
        let error = try #require(reply["error"])
        #expect(error["code"] == .integer(-32000))
        #expect(error["data"]?["reason"] == .string("UNAVAILABLE"))
        #expect(error["data"]?["status"] == .string("UNAVAILABLE"))
        #expect(error["message"]?.stringValue?.hasPrefix("UNAVAILABLE : ") == true)
        #expect(error["message"]?.stringValue?.contains("secret") == false)
    }

    @Test(arguments: [PostgresError.Kind.server, .uniqueViolation, .serializationFailure, .decoding, .aborted])
    func otherDatabaseErrorsAreInternal(kind: PostgresError.Kind) async throws {
        let reply = try await call(throwing: PostgresError(kind, sqlState: "XX000", message: "relation users"))
        #expect(reply["error"]?["code"] == .integer(-32603))
        #expect(reply["error"]?["data"]?["reason"] == .string("INTERNAL"))
        #expect(reply["error"]?["message"]?.stringValue?.contains("relation") == false)
    }
}
