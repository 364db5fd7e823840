import FoundationEssentials
import TesseraLoop

/// Calls the admin JSON-RPC (`users.create`, `oauthClients.create`) with a bearer admin key, to set up fixtures; without
/// a key, the public JSON-RPC (`accounts.signInWithPassword`, `mfaEnrollment.*`). Used on `connection`'s loop only.
final class AdminClient: @unchecked Sendable {
    private let connection: HTTPConnection
    private let writer: HTTPRequestWriter
    private let key: String?
    private var nextID = 1

    init(loop: EventLoop, host: String, port: Int, key: String?) {
        connection = HTTPConnection(loop: loop, host: host, port: port, timeout: .seconds(60))
        writer = HTTPRequestWriter(host: "\(host):\(port)")
        self.key = key
    }

    /// The JSON-RPC envelope of a call.
    private struct Call<Parameters: Encodable>: Encodable {
        var jsonrpc = "2.0"
        var id: Int
        var method: String
        var params: Parameters
    }

    /// The JSON-RPC envelope of an answer.
    private struct Answer<Result: Decodable>: Decodable {
        struct Failure: Decodable {
            var code: Int
            var message: String
        }
        var result: Result?
        var error: Failure?
    }

    /// Calls `method` with `params` and decodes its result.
    func call<Parameters: Encodable, Result: Decodable>(
        _ method: String, _ params: Parameters, as: Result.Type
    ) async throws -> Result {
        let body = try JSONEncoder().encode(Call(id: nextID, method: method, params: params))
        nextID += 1
        return try await send(method, body: Array(body), as: Result.self)
    }

    /// Calls `method` with `json`, the params object's JSON text, and decodes its result.
    func call<Result: Decodable>(_ method: String, json: String, as: Result.Type) async throws -> Result {
        let body = #"{"jsonrpc":"2.0","id":\#(nextID),"method":\#(jsonQuote(method)),"params":\#(json)}"#
        nextID += 1
        return try await send(method, body: Array(body.utf8), as: Result.self)
    }

    private func send<Result: Decodable>(_ method: String, body: [UInt8], as: Result.Type) async throws -> Result {
        let request = writer.post(
            "/rpc", contentType: "application/json", body: String(decoding: body, as: UTF8.self),
            fields: key.map { ["Authorization: Bearer \($0)"] } ?? [])
        let response = try await connection.send(request)
        guard response.status == 200 else {
            throw LoadError.setup("\(method): HTTP \(response.status) \(response.text.prefix(300))")
        }
        let answer: Answer<Result>
        do {
            answer = try JSONDecoder().decode(Answer<Result>.self, from: Data(response.body))
        } catch {
            throw LoadError.setup("\(method): cannot read the answer (\(error)): \(response.text.prefix(300))")
        }
        if let failure = answer.error {
            throw LoadError.setup("\(method): \(failure.message) (\(failure.code)): \(response.text.prefix(300))")
        }
        guard let result = answer.result else { throw LoadError.setup("\(method): an answer without result") }
        return result
    }

    /// `users.create` params.
    struct NewUser: Encodable {
        var email: String
        var password: String
        var emailVerified = true
    }

    /// What the generator reads of a `User`.
    struct CreatedUser: Decodable {
        var localId: String
    }

    /// `oauthClients.create` params.
    struct NewClient: Encodable {
        struct Client: Encodable {
            var clientName: String
            var type: String
            var redirectUris: [String]
            var grantTypes: [String]
        }
        var client: Client
    }

    /// What the generator reads of an `OAuthClient`.
    struct CreatedClient: Decodable {
        var clientId: String
        var clientSecret: String?
    }

    func close() {
        connection.close()
    }
}
