import FoundationEssentials
public import Logging
public import TesseraCore
import TesseraCrypto
public import TesseraHTTP
public import TesseraJSON
import TesseraMetrics

/// Calls one factor service over the factor protocol (`docs/factor-protocol.md`): JSON-RPC 2.0 requests signed with
/// the service's secret, answers checked for their signature, their size (64 KiB, the ``HTTPClient``'s limit) and
/// their shape, within the service's timeout, through its circuit breaker, trying the next endpoint once when a
/// connection is refused before anything was sent.
///
/// A refusal the protocol lists (`INVALID_CODE`, `SECOND_FACTOR_EXISTS`, …) reaches the caller as that
/// ``AuthError``; every other failure is `FACTOR_SERVICE_UNAVAILABLE`, which the router never counts against the
/// user. Secrets, codes and params are never logged.
public struct FactorServiceClient: Sendable {
    /// The reasons a factor service may answer with, passed to Tessera's client as they are.
    public static let passedReasons: Set<AuthReason> = [
        .invalidCode, .invalidArgument, .missingCode, .missingSessionInfo, .sessionExpired, .invalidEmail,
        .invalidPhoneNumber, .missingPhoneNumber, .appNotVerified, .missingAppCredential, .invalidAppCredential,
        .secondFactorExists, .deliveryFailed, .quotaExceeded, .tooManyAttemptsTryLater,
    ]
    /// The largest answer accepted.
    public static let maxResponseBytes = 64 * 1024

    /// The service's id (for the breaker, metrics and logs).
    public let factorID: String
    /// Where it answers.
    public let endpoints: FactorServiceEndpoints
    /// The shared secret; nil only while describing a service that has none yet.
    let secret: [UInt8]?
    /// How long one call may take.
    public let timeout: Duration
    let http: HTTPClient
    let health: FactorServiceHealth
    let logger: Logger

    /// A client of the service `factorID` at `endpoints`, signing with `secret`, through `http` (which must limit
    /// answers to ``maxResponseBytes``).
    public init(
        factorID: String, endpoints: FactorServiceEndpoints, secret: [UInt8]?, timeout: Duration, http: HTTPClient,
        health: FactorServiceHealth, logger: Logger
    ) {
        self.factorID = factorID
        self.endpoints = endpoints
        self.secret = secret
        self.timeout = timeout
        self.http = http
        self.health = health
        self.logger = logger
    }

    /// Calls `method` with `params` and returns its result object.
    public func call(_ method: String, _ params: JSONObject) async throws -> JSONObject {
        guard health.permit(factorID) else {
            count(method, "CIRCUIT_OPEN")
            throw Self.unavailable("The factor service \(factorID) is failing; try again shortly.")
        }
        let start = ContinuousClock.now
        do {
            let result = try await exchange(method, params)
            health.record(factorID, succeeded: true)
            health.latency?.observe([factorID, method], ContinuousClock.now - start)
            count(method, "OK")
            return result
        } catch let failure {
            health.record(factorID, succeeded: failure.refusal != nil)
            health.latency?.observe([factorID, method], ContinuousClock.now - start)
            if let refusal = failure.refusal {
                count(method, refusal.reason.rawValue)
                throw refusal
            }
            count(method, failure.outcome)
            logger.warning(
                "factor service call failed",
                metadata: [
                    "factor": .string(factorID), "method": .string(method), "outcome": .string(failure.outcome),
                    "detail": .string(failure.detail),
                ])
            throw Self.unavailable("The factor service \(factorID) did not answer; try again later.")
        }
    }

    /// Why a call did not produce a result: a refusal the protocol allows, or a failure of the service.
    struct Failure: Error {
        var refusal: AuthError?
        var outcome: String
        var detail: String

        static func service(_ outcome: String, _ detail: String) -> Failure {
            Failure(refusal: nil, outcome: outcome, detail: detail)
        }
    }

    private func exchange(_ method: String, _ params: JSONObject) async throws(Failure) -> JSONObject {
        let requestID = Int64.random(in: 1...Int64(Int32.max))
        let body = Array(
            JSONValue.object([
                "jsonrpc": "2.0", "id": .integer(requestID), "method": .string(method), "params": .object(params),
            ]).description.utf8)
        let nonce: String
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        do {
            nonce = try FactorServiceSignature.makeNonce()
            if let secret {
                let timestamp = Int64(Date().timeIntervalSince1970)
                headers.add(name: FactorServiceSignature.timestampHeader, value: String(timestamp))
                headers.add(name: FactorServiceSignature.nonceHeader, value: nonce)
                headers.add(
                    name: FactorServiceSignature.signatureHeader,
                    value: try FactorServiceSignature.request(
                        body: body, secret: secret, timestamp: timestamp, nonce: nonce))
            }
        } catch {
            throw .service("INTERNAL", "cannot sign: \(error)")
        }
        let response = try await send(body: body, headers: headers)
        guard response.status == .ok else {
            throw .service("HTTP_\(response.status.code)", "status \(response.status.code)")
        }
        if let secret {
            guard let signature = response.headers[FactorServiceSignature.signatureHeader],
                FactorServiceSignature.isValidResponse(signature, body: response.body, secret: secret, nonce: nonce)
            else { throw .service("BAD_SIGNATURE", "the answer is not signed with the service's secret") }
        }
        return try Self.result(of: response.body, requestID: requestID)
    }

    /// Sends to the endpoints in turn from a random one: the next is tried once when the first refuses the
    /// connection (nothing reached the service).
    private func send(body: [UInt8], headers: HTTPHeaders) async throws(Failure) -> HTTPClientResponse {
        let urls = endpoints.urls
        let first = Int.random(in: 0..<urls.count)
        let tries = min(2, urls.count)
        var lastError: HTTPClientError?
        for offset in 0..<tries {
            let url = urls[(first + offset) % urls.count]
            do {
                return try await http.send(
                    HTTPClientRequest(method: .post, url: url, headers: headers, body: body), timeout: timeout)
            } catch {
                lastError = error
                guard case .connectionRefused = error else { break }
            }
        }
        switch lastError {
        case .timeout?: throw .service("TIMEOUT", "no answer within \(timeout)")
        case .responseTooLarge?: throw .service("TOO_LARGE", "answer over \(Self.maxResponseBytes) bytes")
        case let error?: throw .service("TRANSPORT", error.description)
        case nil: throw .service("TRANSPORT", "no endpoint")
        }
    }

    /// The `result` of a JSON-RPC answer to request `requestID`, or the refusal in its `error`.
    static func result(of body: [UInt8], requestID: Int64) throws(Failure) -> JSONObject {
        let answer: JSONObject
        do {
            guard let object = try JSONValue(parsing: String(decoding: body, as: UTF8.self)).objectValue else {
                throw Failure.service("MALFORMED", "the answer is not a JSON object")
            }
            answer = object
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .service("MALFORMED", "the answer is not JSON")
        }
        guard answer["jsonrpc"]?.stringValue == "2.0", answer["id"]?.int64Value == requestID else {
            throw .service("MALFORMED", "the answer is not a JSON-RPC 2.0 answer to this request")
        }
        switch (answer["result"], answer["error"]) {
        case (.object(let result)?, nil):
            return result
        case (nil, .object(let error)?):
            let data = error["data"]?.objectValue
            guard let name = data?["reason"]?.stringValue, let reason = AuthReason(rawValue: name),
                passedReasons.contains(reason)
            else { throw .service("ERROR", "the service answered an error Tessera does not pass on") }
            let message = error["message"]?.stringValue ?? ""
            let detail = message.hasPrefix("\(name) : ") ? String(message.dropFirst(name.count + 3)) : message
            let retryAfter = data?["retryAfter"]?.intValue.map { max(1, $0) }
            throw Failure(
                refusal: AuthError(reason, String(detail.prefix(200)), retryAfter: retryAfter), outcome: name,
                detail: "")
        default:
            throw .service("MALFORMED", "the answer has no result object and no error object")
        }
    }

    private func count(_ method: String, _ outcome: String) {
        health.calls?.increment([factorID, method, outcome])
    }

    static func unavailable(_ detail: String) -> AuthError {
        AuthError(.factorServiceUnavailable, detail)
    }
}
