public import TesseraHTTP
import TesseraJSON

/// Answers JSON-RPC 2.0 requests (API §2) from a frozen method table.
///
/// A body is parsed once into a ``JSONValue``; each request's params are decoded strictly into the method's params
/// type, its result encoded to a ``JSONValue``, and the whole reply (one response or a batch) is written once as
/// bytes, envelopes included. Batch entries run one after the other, so replies follow the order of the batch.
///
/// Notifications (valid requests without an `id` member) are never answered, whatever happens to them. Entries that
/// are not valid requests at all are answered with -32600 even without an `id`, as JSON-RPC 2.0's own examples do:
/// they cannot be told apart from requests whose `id` was lost.
public struct RPCDispatcher: Sendable {
    /// The largest batch accepted (API §9).
    public static let defaultMaxBatchSize = 100

    private let methods: [String: RPCMethod]
    /// `rpc.discover`'s document, written once: every answer to it splices these bytes in.
    private let discoverDocument: [UInt8]
    private let authenticator: RPCAuthenticator?
    private let observer: (@Sendable (RPCCallRecord) -> Void)?
    private let maxBatchSize: Int
    private let parser = JSONParser()

    /// Freezes a method table, adding `rpc.discover` (no params; returns the OpenRPC document of every method,
    /// itself included). `observer` is told about every call, notifications included, synchronously on the caller's
    /// executor (the event loop): it must be cheap and must not block.
    public init(
        methods table: RPCMethodTable, observer: (@Sendable (RPCCallRecord) -> Void)? = nil,
        maxBatchSize: Int = RPCDispatcher.defaultMaxBatchSize
    ) {
        let describeOnly = RPCMethod(
            name: "rpc.discover", summary: "Returns the OpenRPC document of this listener.",
            params: RPCNoParams.self, result: JSONObject.self, handler: { _, _ in JSONObject() }
        )
        let document = OpenRPCDocument.build(
            title: table.title, version: table.version, methods: table.methods + [describeOnly]
        )
        let discover = RPCMethod(
            name: describeOnly.name, summary: describeOnly.summary, params: RPCNoParams.self, result: JSONValue.self,
            handler: { _, _ in document }
        )
        var written = JSONWriter()
        written.write(document)
        discoverDocument = written.bytes
        var methods: [String: RPCMethod] = [:]
        for method in table.methods + [discover] {
            methods[method.name] = method
        }
        self.methods = methods
        authenticator = table.authenticator
        self.observer = observer
        self.maxBatchSize = maxBatchSize
    }

    /// Answers a request body: the response bytes, or nil when nothing is to be answered (the body held only
    /// notifications).
    public func handle(body: [UInt8], context: RPCContext) async -> [UInt8]? {
        let start = ContinuousClock.now
        let document: JSONValue
        do {
            document = try parser.parse(body)
        } catch {
            return fail(.parseError("the body is not valid JSON: \(error)"), start: start)
        }
        switch document {
        case .object:
            guard let reply = await process(document, context: context) else { return nil }
            var writer = RPCResponseWriter()
            writer.write(reply)
            return writer.bytes
        case .array(let entries):
            guard !entries.isEmpty else {
                return fail(.invalidRequest("a batch must hold at least one request"), start: start)
            }
            guard entries.count <= maxBatchSize else {
                return fail(.invalidRequest("a batch holds at most \(maxBatchSize) requests"), start: start)
            }
            return await processBatch(entries, context: context)
        default:
            return fail(.invalidRequest("the body must be a request object or a batch array"), start: start)
        }
    }

    /// The HTTP binding of `POST /rpc`: 405 (with `Allow: POST`) for other methods, 415 unless the body is
    /// `application/json` (parameters such as `charset` allowed), otherwise 200 with the JSON reply (and
    /// `Cache-Control: no-store`), or 204 when only notifications were sent.
    public func respond(to request: HTTPRequest, context: RPCContext) async -> HTTPResponse {
        guard request.method == .post else {
            var response = HTTPResponse.text("Only POST is allowed on this endpoint.\n", status: .methodNotAllowed)
            response.headers.add(name: "Allow", value: "POST")
            return response
        }
        guard RPCDispatcher.isJSON(contentType: request.headers["Content-Type"]) else {
            return HTTPResponse.text("Content-Type must be application/json.\n", status: .unsupportedMediaType)
        }
        guard let body = await handle(body: request.body, context: context) else {
            return HTTPResponse(status: .noContent)
        }
        // Answers carry tokens, codes and secrets: no cache, shared or private, may keep them.
        return HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], body: body)
    }

    /// Whether a `Content-Type` value names `application/json`, ignoring case, parameters and optional whitespace.
    static func isJSON(contentType: String?) -> Bool {
        guard let contentType else { return false }
        if contentType == "application/json" { return true }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var mediaType = Array(contentType.utf8.prefix { $0 != UInt8(ascii: ";") })
        while let last = mediaType.last, isBlank(last) {
            mediaType.removeLast()
        }
        let lowercased = mediaType.drop(while: isBlank).map { byte in
            byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
        }
        return lowercased.elementsEqual("application/json".utf8)
    }

    private func processBatch(_ entries: [JSONValue], context: RPCContext) async -> [UInt8]? {
        var writer = RPCResponseWriter()
        var answered = 0
        let budget = BatchBudget()
        writer.beginBatch()
        for entry in entries {
            guard let reply = await process(entry, context: context, budget: budget) else { continue }
            if answered > 0 { writer.separate() }
            writer.write(reply)
            answered += 1
        }
        writer.endBatch()
        return answered > 0 ? writer.bytes : nil
    }

    /// Calls that hash a password allowed in one batch: a batch of 100 sign-ins would otherwise take 100 scrypt
    /// jobs in one request.
    static let passwordCallsPerBatch = 1

    /// What the calls of one batch have used up so far.
    private final class BatchBudget {
        var passwordCalls = 0
    }

    /// Runs one entry: nil for notifications (entries without `id` that are valid requests), else its reply. A
    /// batch's entries share `budget`; a lone request has none.
    private func process(_ entry: JSONValue, context: RPCContext, budget: BatchBudget? = nil) async -> RPCReply? {
        let start = ContinuousClock.now
        let request: RPCRequest
        switch RPCRequest.validate(entry) {
        case .failure(let invalid):
            report(RPCCallRecord.invalidRequest, invalid.error, start: start)
            return RPCReply(id: invalid.id, outcome: .failure(invalid.error))
        case .success(let valid):
            request = valid
        }
        let outcome: Result<JSONValue, RPCError>
        let recordedName: String
        if let method = methods[request.method] {
            recordedName = method.name
            if method.hashesPassword, let budget {
                budget.passwordCalls += 1
                if budget.passwordCalls > Self.passwordCallsPerBatch {
                    let refused = RPCError.invalidRequest(
                        "a batch may hold \(Self.passwordCallsPerBatch) call that checks or sets a password; "
                            + "send \(method.name) on its own")
                    report(recordedName, refused, start: start)
                    return request.id.map { RPCReply(id: $0, outcome: .failure(refused)) }
                }
            }
            do {
                let callContext = try await authenticate(method, context: context)
                outcome = .success(try await method.invoke(request.params, callContext))
            } catch {
                outcome = .failure(error)
            }
        } else {
            recordedName = RPCCallRecord.unknownMethod
            outcome = .failure(.methodNotFound(request.method))
        }
        if case .failure(let error) = outcome {
            report(recordedName, error, start: start)
        } else {
            report(recordedName, nil, start: start)
        }
        guard let id = request.id else { return nil }
        let isDiscovery = recordedName == "rpc.discover"
        return RPCReply(id: id, outcome: outcome, writtenResult: isDiscovery ? discoverDocument : nil)
    }

    /// The context a method runs with: the authenticator's answer, except for `rpc.discover`, which is open.
    private func authenticate(_ method: RPCMethod, context: RPCContext) async throws(RPCError) -> RPCContext {
        guard let authenticator, !method.name.hasPrefix("rpc.") else { return context }
        do {
            return try await authenticator(context)
        } catch {
            throw RPCMethod.rpcError(for: error, method: method.name, logger: context.logger)
        }
    }

    /// A single error reply for a body that is not a valid request or batch.
    private func fail(_ error: RPCError, start: ContinuousClock.Instant) -> [UInt8] {
        report(RPCCallRecord.invalidRequest, error, start: start)
        var writer = RPCResponseWriter()
        writer.write(RPCReply(id: .null, outcome: .failure(error)))
        return writer.bytes
    }

    private func report(_ method: String, _ error: RPCError?, start: ContinuousClock.Instant) {
        guard let observer else { return }
        observer(RPCCallRecord(method: method, reason: error?.reason, duration: ContinuousClock.now - start))
    }
}
