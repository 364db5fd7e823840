public import FoundationEssentials
public import MultiFactor
import Synchronization
public import TesseraCore
import TesseraCrypto
public import TesseraHTTP
public import TesseraJSON

/// Serves a ``Factor`` over the factor protocol (`docs/factor-protocol.md`): `POST /rpc` with JSON-RPC 2.0, every
/// call but `factor.describe` and `rpc.discover` checked for its signature, timestamp and nonce, every answer to a
/// signed call signed. It is how `tessera factor serve totp` runs a built-in factor apart from the servers that hold
/// the signing keys, with the same plugin code. It keeps no state but the nonces of the last two minutes.
public final class FactorHost: Sendable {
    /// The factor served.
    public let factor: any Factor
    /// The descriptor answered to `factor.describe`.
    public let description: JSONObject
    private let secret: [UInt8]
    private let keyRing: KeyRing
    private let database: any SQLRunner & Sendable
    private let nonces = Mutex(NonceMemory())
    private let clock: @Sendable () -> Date

    /// Serves `factor`, described by its own descriptor, checking calls with `secret` (32 bytes). With `id`, it
    /// describes itself under that id instead, its members renamed to match (`totp-remote`: `totpRemoteEnrollmentInfo`
    /// …), so that a server which also runs the factor in process can register it beside its namesake. Factors that
    /// query a database get `database`; `clock` is the service's own time, used only for the timestamps of requests
    /// (the factor uses the router's `context.now`).
    public init(
        factor: any Factor, id: String? = nil, secret: [UInt8], database: any SQLRunner & Sendable,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.factor = factor
        self.secret = secret
        self.database = database
        self.clock = clock
        keyRing = try KeyRing(
            currentKeyID: "factor-host",
            keys: ["factor-host": try SymmetricKey(bytes: try SecureRandom.bytes(count: 32))])
        let descriptor = id.map { Self.renamed(factor.descriptor, to: $0) } ?? factor.descriptor
        var members: JSONObject = [
            "enrollmentInfo": Self.member(descriptor.enrollmentInfo),
            "enrollmentResult": Self.member(descriptor.enrollmentResult),
            "verificationInfo": Self.member(descriptor.verificationInfo),
            "signInStart": .null,
        ]
        if let start = descriptor.signInStart {
            members["signInStart"] = ["info": Self.member(start.info), "result": Self.member(start.result)]
        }
        var description: JSONObject = [
            "protocolVersion": 1, "id": .string(descriptor.id.rawValue), "displayName": .string(descriptor.displayName),
            "amr": .string(descriptor.amr), "members": .object(members),
            "enrollmentLifetime": .integer(Int64(descriptor.enrollmentLifetime)),
            "signInLifetime": .integer(Int64(max(30, descriptor.signInLifetime))),
        ]
        if let pages = descriptor.loginPages { description["loginPages"] = .object(pages.json) }
        if let reference = descriptor.enrollmentNamedBy { description["enrollmentNamedBy"] = .object(reference.json) }
        if descriptor.isBackup { description["backup"] = true }
        self.description = description
    }

    /// Answers one HTTP request to the service. A request that carries a signature is checked before its body is
    /// read; one without may only call `factor.describe` and `rpc.discover`.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard request.method == .post else { return HTTPResponse.text("use POST\n", status: .methodNotAllowed) }
        let signed = request.headers[FactorServiceSignature.signatureHeader] != nil
        var nonce: String?
        if signed {
            guard let accepted = authenticate(request) else { return refused(id: .null) }
            nonce = accepted
        }
        let call: JSONObject
        do {
            guard let object = try JSONValue(parsing: String(decoding: request.body, as: UTF8.self)).objectValue
            else {
                return answer(
                    error: -32600, "INVALID_ARGUMENT", "not a JSON-RPC request object", id: .null, nonce: nonce)
            }
            call = object
        } catch {
            return answer(error: -32700, "INVALID_ARGUMENT", "parse error", id: .null, nonce: nonce)
        }
        let id = call["id"] ?? .null
        guard call["jsonrpc"]?.stringValue == "2.0", let method = call["method"]?.stringValue else {
            return answer(error: -32600, "INVALID_ARGUMENT", "not a JSON-RPC 2.0 request", id: id, nonce: nonce)
        }
        if method == "factor.describe" || method == "rpc.discover" {
            return answer(result: method == "factor.describe" ? description : Self.discovery, id: id, nonce: nonce)
        }
        guard let nonce else { return refused(id: id) }
        let params = call["params"]?.objectValue ?? [:]
        do {
            return answer(result: try await dispatch(method, params), id: id, nonce: nonce)
        } catch let error as AuthError {
            var data: JSONObject = ["reason": .string(error.reason.rawValue), "status": .string(error.reason.status)]
            if let retryAfter = error.retryAfter { data["retryAfter"] = .integer(Int64(retryAfter)) }
            return answer(error: -32000, error.description, data: data, id: id, nonce: nonce)
        } catch let error as HostError {
            return answer(
                error: error.code, "\(error.reason) : \(error.detail)",
                data: ["reason": .string(error.reason)], id: id, nonce: nonce)
        } catch {
            return answer(error: -32603, "INTERNAL", data: ["reason": "INTERNAL"], id: id, nonce: nonce)
        }
    }

    /// `401` with the protocol's `UNAUTHENTICATED` error, unsigned.
    private func refused(id: JSONValue) -> HTTPResponse {
        var response = answer(
            error: -32001, "UNAUTHENTICATED", "the request is not signed, or signed wrongly, too old or replayed",
            id: id)
        response.status = .unauthorized
        return response
    }

    /// The request's nonce when its timestamp, nonce and signature are good (the nonce is then remembered).
    private func authenticate(_ request: HTTPRequest) -> String? {
        guard let timestampText = request.headers[FactorServiceSignature.timestampHeader],
            let timestamp = Int64(timestampText), let nonce = request.headers[FactorServiceSignature.nonceHeader],
            (16...64).contains(nonce.utf8.count),
            let signature = request.headers[FactorServiceSignature.signatureHeader]
        else { return nil }
        let now = clock().timeIntervalSince1970
        guard abs(now - TimeInterval(timestamp)) <= FactorServiceSignature.maxClockSkew,
            FactorServiceSignature.isValidRequest(
                signature, body: request.body, secret: secret, timestamp: timestamp, nonce: nonce),
            nonces.withLock({ $0.accept(nonce, now: now) })
        else { return nil }
        return nonce
    }

    private func dispatch(_ method: String, _ params: JSONObject) async throws -> JSONObject {
        let reader = HostParams(params)
        let user = try reader.user()
        let context = try reader.context(database: database, keyRing: keyRing, user: user, factor: factor.descriptor.id)
        switch method {
        case "factor.startEnrollment":
            let challenge = try await factor.startEnrollment(
                try reader.object("info"), for: user, session: try reader.session(), in: context)
            var display: JSONObject = ["instructions": .string(challenge.display.instructions)]
            if let svg = challenge.display.qrCodeSVG { display["qrCodeSVG"] = .string(svg) }
            if let key = challenge.display.manualEntryKey { display["manualEntryKey"] = .string(key) }
            return [
                "response": .object(challenge.response), "state": .string(Base64URL.encode(challenge.state)),
                "display": .object(display),
            ]
        case "factor.finalizeEnrollment":
            let enrolled = try await factor.finalizeEnrollment(
                try reader.object("info"), state: try reader.bytes("state") ?? [], for: user, in: context)
            var result: JSONObject = ["publicInfo": .object(enrolled.publicInfo)]
            if let masked = enrolled.maskedInfo { result["maskedInfo"] = .object(masked) }
            if !enrolled.state.isEmpty { result["enrollmentState"] = .string(Base64URL.encode(enrolled.state)) }
            if let mark = enrolled.replayMark { result["replayMark"] = .integer(mark) }
            if let key = enrolled.uniqueKey { result["uniqueKey"] = .string(key) }
            return result
        case "factor.startSignIn":
            let challenge = try await factor.startSignIn(
                try reader.enrollment(of: user, factor: factor.descriptor.id), try reader.object("info"),
                session: try reader.session(), in: context)
            return ["response": .object(challenge.response), "state": .string(Base64URL.encode(challenge.state))]
        case "factor.verifySignIn":
            let verdict = try await factor.verifySignIn(
                try reader.enrollment(of: user, factor: factor.descriptor.id), try reader.object("info"),
                state: try reader.bytes("state"), in: context)
            var result: JSONObject = [:]
            if let mark = verdict.replayMark { result["replayMark"] = .integer(mark) }
            if let state = verdict.state { result["enrollmentState"] = .string(Base64URL.encode(state)) }
            return result
        default:
            throw HostError(code: -32601, reason: "INVALID_ARGUMENT", detail: "method not found: \(method)")
        }
    }

    private func answer(result: JSONObject, id: JSONValue, nonce: String?) -> HTTPResponse {
        send(["jsonrpc": "2.0", "id": id, "result": .object(result)], nonce: nonce)
    }

    private func answer(
        error code: Int, _ message: String, data: JSONObject? = nil, id: JSONValue, nonce: String? = nil
    ) -> HTTPResponse {
        var error: JSONObject = ["code": .integer(Int64(code)), "message": .string(message)]
        error["data"] = .object(data ?? ["reason": .string(message)])
        return send(["jsonrpc": "2.0", "id": id, "error": .object(error)], nonce: nonce)
    }

    private func answer(
        error code: Int, _ reason: String, _ detail: String, id: JSONValue, nonce: String? = nil
    ) -> HTTPResponse {
        answer(error: code, "\(reason) : \(detail)", data: ["reason": .string(reason)], id: id, nonce: nonce)
    }

    private func send(_ body: JSONObject, nonce: String?) -> HTTPResponse {
        let bytes = Array(JSONValue.object(body).description.utf8)
        var response = HTTPResponse(status: .ok, body: bytes)
        response.headers.add(name: "Content-Type", value: "application/json")
        if let nonce, let signature = try? FactorServiceSignature.response(body: bytes, secret: secret, nonce: nonce) {
            response.headers.add(name: FactorServiceSignature.signatureHeader, value: signature)
        }
        return response
    }

    /// `descriptor` under the id `id`, each member name's prefix (the old id) replaced by `id` in camelCase.
    static func renamed(_ descriptor: FactorDescriptor, to id: String) -> FactorDescriptor {
        let parts = id.split(separator: "-")
        let camel =
            (parts.first.map(String.init) ?? id)
            + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        let old = descriptor.id.rawValue
        func rename(_ member: FactorMember) -> FactorMember {
            let rest =
                member.name.hasPrefix(old)
                ? String(member.name.dropFirst(old.count))
                : member.name.prefix(1).uppercased() + member.name.dropFirst()
            return FactorMember(camel + rest, schema: member.schema)
        }
        var renamed = descriptor
        renamed.id = FactorID(rawValue: id)
        renamed.enrollmentInfo = rename(descriptor.enrollmentInfo)
        renamed.enrollmentResult = rename(descriptor.enrollmentResult)
        renamed.verificationInfo = rename(descriptor.verificationInfo)
        renamed.signInStart = descriptor.signInStart.map {
            SignInStartMembers(info: rename($0.info), result: rename($0.result))
        }
        return renamed
    }

    private static func member(_ member: FactorMember) -> JSONValue {
        ["name": .string(member.name), "schema": member.schema]
    }

    /// The OpenRPC document of the protocol (`docs/factor-protocol.openrpc.json`).
    static let discovery: JSONObject =
        (try? JSONValue(parsing: FactorProtocolDocument.text).objectValue) ?? ["openrpc": "1.2.6"]
}

/// A call the host refuses before its factor sees it.
struct HostError: Error {
    var code: Int
    var reason: String
    var detail: String
}
