import TesseraHTTP
import TesseraJSON
import TesseraRPC
import Testing

private func post(
    _ body: String, contentType: String? = "application/json", method: HTTPMethod = .post
) async
    -> HTTPResponse
{
    var headers = HTTPHeaders()
    if let contentType { headers.add(name: "Content-Type", value: contentType) }
    let request = HTTPRequest(method: method, target: "/rpc", headers: headers, body: Array(body.utf8))
    return await makeDispatcher().respond(to: request, context: RPCContext(requestID: "h"))
}

@Test(arguments: [HTTPMethod.get, .head, .put, .delete, .options, .other("BREW")])
func otherMethodsAre405(_ method: HTTPMethod) async {
    let response = await post(request("test.ping"), method: method)
    #expect(response.status == .methodNotAllowed)
    #expect(response.headers["Allow"] == "POST")
}

@Test(arguments: [nil, "text/plain", "application/jsonx", "application/json-rpc", "application", "", "json"])
func otherContentTypesAre415(_ contentType: String?) async {
    let response = await post(request("test.ping"), contentType: contentType)
    #expect(response.status == .unsupportedMediaType)
}

@Test(arguments: [
    "application/json", "Application/JSON", "application/json; charset=utf-8", " application/json ;charset=UTF-8",
    "APPLICATION/JSON\t;\tcharset=\"utf-8\"",
])
func jsonIsAnswered200(_ contentType: String) async throws {
    let response = await post(request("test.ping"), contentType: contentType)
    #expect(response.status == .ok)
    #expect(response.headers["Content-Type"] == "application/json")
    #expect(response.headers["Cache-Control"] == "no-store")
    #expect(try JSONValue(parsing: response.body) == resultReply(id: 1, ["pong": true]))
}

@Test func rpcErrorsAreStill200() async throws {
    let response = await post("{")
    #expect(response.status == .ok)
    #expect(response.headers["Cache-Control"] == "no-store")
    #expect(try JSONValue(parsing: response.body)["error"]?["code"] == -32700)
}

@Test func notificationsAre204() async {
    let response = await post(request(id: nil, "test.ping"))
    #expect(response.status == .noContent)
    #expect(response.body.isEmpty)
    let batch = await post("[" + request(id: nil, "test.ping") + "]")
    #expect(batch.status == .noContent)
}
