import Synchronization
import TesseraJSON
import TesseraRPC

struct PhoneInfo: Codable, Sendable {
    var phoneNumber: String
}

struct EchoParams: Codable, Sendable {
    var text: String
    var times: Int?
    var info: PhoneInfo?
}

struct EchoResult: Codable, Sendable {
    var text: String
    var phoneNumber: String?
}

struct Pong: Codable, Sendable {
    var pong: Bool
}

struct SignInParams: Codable, Sendable, RPCParamsErrorMapping {
    var mfaPendingCredential: String

    static func rpcError(for error: JSONDecodingError) -> RPCError? {
        guard error.kind == .missingField, error.field == "mfaPendingCredential" else { return nil }
        return RPCError(reason: "MISSING_MFA_PENDING_CREDENTIAL", status: .invalidArgument, detail: error.message)
    }
}

/// An error carrying a secret that must never reach the client.
struct LeakyFailure: Error {
    var secret = "s3cr3t-value"
}

struct DomainFailure: RPCErrorConvertible {
    var rpcError: RPCError {
        RPCError(reason: "USER_NOT_FOUND", status: .notFound, detail: "There is no user with this id.")
    }
}

/// Collects what the dispatcher reports and counts handler runs.
final class Recorder: Sendable {
    let records = Mutex<[RPCCallRecord]>([])
    let runs = Mutex<Int>(0)

    func record(_ record: RPCCallRecord) {
        records.withLock { $0.append(record) }
    }

    func countRun() {
        runs.withLock { $0 += 1 }
    }

    /// How many times a handler ran.
    var runCount: Int { runs.withLock { $0 } }

    /// Everything reported so far.
    var all: [RPCCallRecord] { records.withLock { $0 } }
}

/// A dispatcher with a handful of toy methods.
func makeDispatcher(
    recorder: Recorder = Recorder(), maxBatchSize: Int = RPCDispatcher.defaultMaxBatchSize
)
    -> RPCDispatcher
{
    var table = RPCMethodTable(title: "Toy", version: "1.0.0")
    table.register("test.echo", summary: "Repeats text.", params: EchoParams.self, result: EchoResult.self) {
        params, _ in
        recorder.countRun()
        return EchoResult(
            text: String(repeating: params.text, count: params.times ?? 1), phoneNumber: params.info?.phoneNumber
        )
    }
    table.register("test.ping", summary: "Answers pong.", params: RPCNoParams.self, result: Pong.self) { _, _ in
        recorder.countRun()
        return Pong(pong: true)
    }
    table.register("test.whoami", summary: "Echoes context.", params: RPCNoParams.self, result: JSONValue.self) {
        _, context in
        ["requestID": .string(context.requestID), "remote": context.clientAddress.map { .string($0) } ?? nil]
    }
    table.register("test.invalidCode", summary: "Fails.", params: RPCNoParams.self, result: Pong.self) { _, _ in
        throw RPCError(reason: "INVALID_CODE", status: .invalidArgument, detail: "The verification code is not valid.")
    }
    table.register("test.throttled", summary: "Fails.", params: RPCNoParams.self, result: Pong.self) { _, _ in
        recorder.countRun()
        throw RPCError(
            reason: "TOO_MANY_ATTEMPTS_TRY_LATER", status: .resourceExhausted, detail: "Try again later.",
            retryAfter: 30
        )
    }
    table.register("test.missing", summary: "Fails.", params: RPCNoParams.self, result: Pong.self) { _, _ in
        throw RPCError(reason: "MISSING_ID_TOKEN", status: .invalidArgument, detail: "idToken is required.")
    }
    table.register("test.crash", summary: "Fails.", params: RPCNoParams.self, result: Pong.self) { _, _ in
        throw LeakyFailure()
    }
    table.register("test.domain", summary: "Fails.", params: RPCNoParams.self, result: Pong.self) { _, _ in
        throw DomainFailure()
    }
    table.register("test.decodeNested", summary: "Fails.", params: RPCNoParams.self, result: PhoneInfo.self) {
        _, _ in
        try JSONValueDecoder().decode(PhoneInfo.self, from: ["phoneNumber": "+1", "extra": true])
    }
    table.register("test.signIn", summary: "Needs a credential.", params: SignInParams.self, result: Pong.self) {
        _, _ in Pong(pong: true)
    }
    table.register(
        "test.hash", summary: "Pretends to hash a password.", params: RPCNoParams.self, result: Pong.self,
        hashesPassword: true
    ) { _, _ in Pong(pong: true) }
    return RPCDispatcher(methods: table, observer: { recorder.record($0) }, maxBatchSize: maxBatchSize)
}

/// Sends a body and parses the reply; nil when there is none.
func call(_ dispatcher: RPCDispatcher, _ body: String) async throws -> JSONValue? {
    guard let reply = try await callRaw(dispatcher, body) else { return nil }
    return try JSONValue(parsing: reply)
}

/// Sends a body and returns the reply text; nil when there is none.
func callRaw(_ dispatcher: RPCDispatcher, _ body: String) async throws -> String? {
    let context = RPCContext(requestID: "req-1", peerAddress: "192.0.2.1:5555")
    guard let reply = await dispatcher.handle(body: Array(body.utf8), context: context) else { return nil }
    return String(decoding: reply, as: UTF8.self)
}

/// The error envelope of API §2.
func errorReply(
    id: JSONValue, code: Int, reason: String, status: String = "INVALID_ARGUMENT", detail: String,
    retryAfter: Int? = nil
) -> JSONValue {
    var data: JSONObject = ["reason": .string(reason), "status": .string(status)]
    if let retryAfter { data["retryAfter"] = .integer(Int64(retryAfter)) }
    return [
        "jsonrpc": "2.0", "id": id,
        "error": [
            "code": .integer(Int64(code)), "message": .string(detail.isEmpty ? reason : "\(reason) : \(detail)"),
            "data": .object(data),
        ],
    ]
}

/// The success envelope of API §2.
func resultReply(id: JSONValue, _ result: JSONValue) -> JSONValue {
    ["jsonrpc": "2.0", "id": id, "result": result]
}

/// A request text.
func request(id: String? = "1", _ method: String, params: String? = nil) -> String {
    var members = [#""jsonrpc":"2.0""#]
    if let id { members.append(#""id":\#(id)"#) }
    members.append(#""method":"\#(method)""#)
    if let params { members.append(#""params":\#(params)"#) }
    return "{" + members.joined(separator: ",") + "}"
}
