import TesseraJSON
import Testing

@testable import tessera

private let url = "http://127.0.0.1:8081"

private func reply(_ text: String, status: Int = 200) throws(AdminFailure) -> JSONValue {
    try AdminRPCEnvelope.result(status: status, body: Array(text.utf8), url: url)
}

@Suite struct AdminRPCEnvelopeTests {
    @Test func theRequestIsAJSONRPCObjectWithNamedParams() {
        let body = AdminRPCEnvelope.requestBody(for: .getTenant("t1"), id: 3)
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":3,"method":"tenants.get","params":{"tenantId":"t1"}}"#)
        let noParams = AdminRPCEnvelope.requestBody(for: .listAdminKeys(), id: 1)
        #expect(
            String(decoding: noParams, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":1,"method":"adminKeys.list","params":{}}"#)
    }

    @Test func theResultIsReturned() throws {
        #expect(try reply(#"{"jsonrpc":"2.0","id":1,"result":{"kid":"k2"}}"#) == ["kid": "k2"])
        #expect(try reply(#"{"jsonrpc":"2.0","id":1,"result":{}}"#) == [:])
    }

    @Test func aJSONRPCErrorBecomesReasonAndDetail() {
        let error = #"""
            {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"TENANT_NOT_FOUND : No tenant t9.",
            "data":{"reason":"TENANT_NOT_FOUND","status":"NOT_FOUND"}}}
            """#
        #expect(throws: AdminFailure.rpc(reason: "TENANT_NOT_FOUND", message: "TENANT_NOT_FOUND : No tenant t9.")) {
            try reply(error)
        }
        #expect(
            AdminFailure.rpc(reason: "TENANT_NOT_FOUND", message: "TENANT_NOT_FOUND : No tenant t9.").description
                == "TENANT_NOT_FOUND : No tenant t9.")
        #expect(
            AdminFailure.rpc(reason: "INTERNAL", message: "Internal error").description
                == "INTERNAL : Internal error")
        #expect(throws: AdminFailure.rpc(reason: nil, message: "JSON-RPC error -32601")) {
            try reply(#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}"#)
        }
        // An error reply wins even under an HTTP error status.
        #expect(throws: AdminFailure.rpc(reason: "UNAUTHENTICATED", message: "UNAUTHENTICATED : no key")) {
            try reply(
                #"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"UNAUTHENTICATED : no key","#
                    + #""data":{"reason":"UNAUTHENTICATED"}}}"#, status: 401)
        }
    }

    @Test func anythingElseIsAnUnexpectedAnswerNamingTheURL() {
        #expect(throws: AdminFailure.unexpectedAnswer(url: url, detail: "HTTP 415: unsupported media type")) {
            try reply("unsupported media type\nmore", status: 415)
        }
        #expect(throws: AdminFailure.unexpectedAnswer(url: url, detail: "HTTP 404")) { try reply("", status: 404) }
        #expect(throws: AdminFailure.unexpectedAnswer(url: url, detail: "the reply is not JSON")) {
            try reply("<html>")
        }
        let notRPC = AdminFailure.unexpectedAnswer(url: url, detail: "the reply is not a JSON-RPC 2.0 response")
        #expect(throws: notRPC) { try reply(#"{"result":{}}"#) }
        #expect(throws: notRPC) { try reply(#"{"jsonrpc":"2.0","id":1}"#) }
        #expect(
            AdminFailure.unexpectedAnswer(url: url, detail: "HTTP 404").description
                == "unexpected answer from the admin listener at http://127.0.0.1:8081: HTTP 404")
        #expect(
            AdminFailure.unreachable(url: url, detail: "connection refused by 127.0.0.1:8081").description
                == "cannot reach admin listener at http://127.0.0.1:8081: connection refused by 127.0.0.1:8081")
    }

    @Test func aLongErrorPageIsCutShort() throws {
        let page = String(repeating: "x", count: 1000)
        do {
            _ = try reply(page, status: 500)
            Issue.record("expected a failure")
        } catch {
            guard case .unexpectedAnswer(_, let detail) = error else { throw error }
            #expect(detail == "HTTP 500: " + String(repeating: "x", count: 200))
        }
    }
}
