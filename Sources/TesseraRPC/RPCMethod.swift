import Logging
import TesseraJSON

/// One registered method, type-erased: its description for the OpenRPC document and a closure that decodes the
/// params, runs the handler and encodes the result.
struct RPCMethod: Sendable {
    /// Runs the method on raw params (nil when the request had none); every failure is an ``RPCError``.
    typealias Invocation = @Sendable (JSONValue?, RPCContext) async throws(RPCError) -> JSONValue

    let name: String
    let summary: String
    let paramsSchema: JSONValue
    let resultSchema: JSONValue
    /// Whether a call hashes a password (scrypt, ~50 ms of a pool thread): a batch may hold one such call.
    let hashesPassword: Bool
    let invoke: Invocation

    /// Wraps a typed handler.
    init<Params: Decodable & Sendable, Result: Encodable & Decodable & Sendable>(
        name: String, summary: String, params: Params.Type, result: Result.Type, hashesPassword: Bool = false,
        handler: @escaping @Sendable (Params, RPCContext) async throws -> Result
    ) {
        self.name = name
        self.summary = summary
        self.hashesPassword = hashesPassword
        paramsSchema = JSONSchema.of(Params.self)
        resultSchema = JSONSchema.of(Result.self)
        invoke = { rawParams, context async throws(RPCError) -> JSONValue in
            let params = try RPCMethod.decodeParams(Params.self, from: rawParams)
            let result: Result
            do {
                result = try await handler(params, context)
            } catch {
                throw RPCMethod.rpcError(for: error, method: name, logger: context.logger)
            }
            do {
                return try JSONValueEncoder().encode(result)
            } catch {
                context.logger.error(
                    "RPC result could not be encoded",
                    metadata: ["method": .string(name), "error": .string(String(describing: error))]
                )
                throw RPCError.internal()
            }
        }
    }

    /// Wraps a handler of plain JSON params and results, described by the given schemas.
    init(
        name: String, summary: String, paramsSchema: JSONValue, resultSchema: JSONValue,
        handler: @escaping @Sendable (JSONObject, RPCContext) async throws -> JSONValue
    ) {
        self.name = name
        self.summary = summary
        hashesPassword = false
        self.paramsSchema = paramsSchema
        self.resultSchema = resultSchema
        invoke = { rawParams, context async throws(RPCError) -> JSONValue in
            let params = try RPCMethod.decodeParams(JSONObject.self, from: rawParams)
            do {
                return try await handler(params, context)
            } catch {
                throw RPCMethod.rpcError(for: error, method: name, logger: context.logger)
            }
        }
    }

    /// Decodes by-name params strictly. Absent params decode from `{}`; an array is refused, except `[]` for
    /// ``RPCNoParams``.
    static func decodeParams<Params: Decodable>(
        _ type: Params.Type, from rawParams: JSONValue?
    ) throws(RPCError) -> Params {
        let object: JSONValue
        switch rawParams {
        case nil:
            object = .object(JSONObject())
        case .array(let elements)? where elements.isEmpty && Params.self == RPCNoParams.self:
            object = .object(JSONObject())
        case .array?:
            throw RPCError.invalidArgument(
                "params must be an object of named params; positional params are not supported"
            )
        case let value?:
            object = value
        }
        // A method of no params (`rpc.discover` among them) called with none needs no decoder.
        if case .object(let members) = object, members.isEmpty, let none = RPCNoParams() as? Params {
            return none
        }
        // libpq takes text parameters as C strings, so a NUL would cut a value short on its way to the database.
        if let path = Self.pathOfTextWithNUL(in: object, at: "params") {
            throw RPCError.invalidArgument("\(path) must not contain NUL characters (\\u0000)")
        }
        do {
            return try JSONValueDecoder().decode(Params.self, from: object)
        } catch {
            if let mapping = Params.self as? any RPCParamsErrorMapping.Type, let mapped = mapping.rpcError(for: error) {
                throw mapped
            }
            throw RPCError.invalidArgument(error.message)
        }
    }

    /// The path of the first string (member name or value) in `value` that holds U+0000, if any.
    static func pathOfTextWithNUL(in value: JSONValue, at path: String) -> String? {
        switch value {
        case .string(let text):
            return text.utf8.contains(0) ? path : nil
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = pathOfTextWithNUL(in: element, at: "\(path)[\(index)]") { return found }
            }
            return nil
        case .object(let object):
            for (key, member) in object {
                if key.utf8.contains(0) { return "\(path) (a member name)" }
                if let found = pathOfTextWithNUL(in: member, at: "\(path).\(key)") { return found }
            }
            return nil
        case .null, .bool, .integer, .double:
            return nil
        }
    }

    /// What the client is told about an error a handler threw. Anything that is not an ``RPCError``, an
    /// ``RPCErrorConvertible`` or a ``JSONDecodingError`` (bad nested input a handler decoded itself) is a bug: it
    /// is logged here and answered as `INTERNAL` without details. Convertible errors that are the server's fault
    /// (`INTERNAL`, `UNAVAILABLE`) are logged with their original text too.
    static func rpcError(for error: any Error, method: String, logger: Logger) -> RPCError {
        switch error {
        case let error as RPCError:
            return error
        case let error as any RPCErrorConvertible:
            let converted = error.rpcError
            if converted.status == .internal || converted.status == .unavailable {
                logger.error(
                    "RPC handler failed",
                    metadata: ["method": .string(method), "error": .string(String(reflecting: error))]
                )
            }
            return converted
        case let error as JSONDecodingError:
            return RPCError.invalidArgument(error.message)
        default:
            logger.error(
                "RPC handler failed",
                metadata: ["method": .string(method), "error": .string(String(reflecting: error))]
            )
            return RPCError.internal()
        }
    }
}
