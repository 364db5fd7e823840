public import TesseraJSON

/// Decides who is calling: returns the context with ``RPCContext/principal`` set, or throws (an ``RPCError`` or an
/// ``RPCErrorConvertible``) to refuse the call.
public typealias RPCAuthenticator = @Sendable (RPCContext) async throws -> RPCContext

/// The methods of one listener, built at start-up and then handed to an ``RPCDispatcher``, which keeps a frozen
/// copy. `rpc.discover` is added by the dispatcher.
public struct RPCMethodTable: Sendable {
    /// The `info.title` of the OpenRPC document.
    public let title: String
    /// The `info.version` of the OpenRPC document.
    public let version: String
    /// The methods in registration order.
    private(set) var methods: [RPCMethod] = []
    /// Runs before every call of a registered method (not `rpc.discover`), before its params are decoded: it
    /// checks the caller's credentials in the context (the `Authorization` header) and returns the context with
    /// ``RPCContext/principal`` set, or throws to refuse the call. Nil lets every call through.
    public var authenticator: RPCAuthenticator?

    /// Creates an empty table.
    public init(title: String, version: String) {
        self.title = title
        self.version = version
    }

    /// The registered method names in registration order.
    public var methodNames: [String] { methods.map(\.name) }

    /// Registers a method whose params are decoded strictly into `Params` (unknown params rejected) and whose
    /// result is encoded from `Result`. Both types are described in the OpenRPC document. A method that
    /// `hashesPassword` may appear once per batch (the dispatcher refuses the others).
    ///
    /// Names must be unique, non-empty and must not start with `rpc.` (reserved by JSON-RPC 2.0); breaking this is
    /// a programming error and stops the process at start-up.
    public mutating func register<Params: Decodable & Sendable, Result: Encodable & Decodable & Sendable>(
        _ name: String, summary: String, params: Params.Type, result: Result.Type, hashesPassword: Bool = false,
        handler: @escaping @Sendable (Params, RPCContext) async throws -> Result
    ) {
        add(
            RPCMethod(
                name: name, summary: summary, params: params, result: result, hashesPassword: hashesPassword,
                handler: handler))
    }

    /// Registers a method whose params and result are plain JSON, for methods whose members are only known at
    /// start-up (the factor plugins of the multi-factor methods). `paramsSchema` and `resultSchema` describe them
    /// in the OpenRPC document. Absent params arrive as `{}`; positional params are refused before `handler` runs.
    /// The handler checks the members itself and throws errors as a typed handler does. Names follow the rules of
    /// the typed variant.
    public mutating func register(
        _ name: String, summary: String, paramsSchema: JSONValue, resultSchema: JSONValue,
        handler: @escaping @Sendable (JSONObject, RPCContext) async throws -> JSONValue
    ) {
        add(
            RPCMethod(
                name: name, summary: summary, paramsSchema: paramsSchema, resultSchema: resultSchema, handler: handler))
    }

    private mutating func add(_ method: RPCMethod) {
        precondition(!method.name.isEmpty, "an RPC method needs a name")
        precondition(
            !method.name.hasPrefix("rpc."), "RPC method names starting with 'rpc.' are reserved: \(method.name)")
        precondition(!methods.contains { $0.name == method.name }, "RPC method registered twice: \(method.name)")
        methods.append(method)
    }
}
