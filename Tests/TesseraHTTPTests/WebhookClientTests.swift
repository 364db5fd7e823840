import Synchronization
import TesseraHTTP
import TesseraLoop
import Testing

/// Counts the requests a test server received.
final class HitCounter: Sendable {
    private let count = Atomic(0)
    /// Counts one hit and returns the new total.
    func hit() -> Int { count.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue }
    var total: Int { count.load(ordering: .sequentiallyConsistent) }
}

/// A router whose `POST /hook` answers with `statuses[n]` for its n-th hit (the last status repeats), and records
/// each body's content type.
func webhookRouter(statuses: [Int], hits: HitCounter) -> HTTPRouter {
    var router = HTTPRouter()
    router.on(
        .post, "/hook",
        immediate: { request in
            let index = min(hits.hit(), statuses.count) - 1
            let type = request.headers["Content-Type"] ?? "none"
            let body = String(decoding: request.body, as: UTF8.self)
            return .text("\(type) \(body)", status: HTTPStatus(code: statuses[index]))
        })
    return router
}

/// A short policy so the suite stays fast.
let quickPolicy = WebhookRetryPolicy(attempts: 3, timeout: .milliseconds(500), initialBackoff: .milliseconds(20))

/// The delivery error a post threw, if any.
func deliveryError(_ work: () async throws(WebhookDeliveryError) -> Void) async -> WebhookDeliveryError? {
    do {
        try await work()
        return nil
    } catch {
        return error
    }
}

@Suite struct WebhookClientTests {
    @Test func aServerThatFailsTwiceThenSucceedsIsDeliveredAfterThreeAttempts() async throws {
        let hits = HitCounter()
        let fixture = try await ClientFixture.start(router: webhookRouter(statuses: [500, 503, 200], hits: hits))
        let webhook = WebhookClient(client: fixture.client, policy: quickPolicy)
        let started = ContinuousClock.now
        try await webhook.postJSON(Array(#"{"to":"+15555550100"}"#.utf8), to: fixture.baseURL + "/hook")
        #expect(hits.total == 3)
        // Waits of 20 ms and 40 ms came between the attempts.
        #expect(ContinuousClock.now - started >= .milliseconds(60))
        await fixture.stop()
    }

    @Test func aServerThatAlwaysFailsIsTriedExactlyAttemptsTimes() async throws {
        let hits = HitCounter()
        let fixture = try await ClientFixture.start(router: webhookRouter(statuses: [500], hits: hits))
        let webhook = WebhookClient(client: fixture.client, policy: quickPolicy)
        let error = await deliveryError { () async throws(WebhookDeliveryError) in
            try await webhook.postJSON(Array("{}".utf8), to: fixture.baseURL + "/hook")
        }
        #expect(error == WebhookDeliveryError(attempts: 3, lastFailure: "HTTP status 500"))
        #expect(error?.description == "webhook not delivered after 3 attempts: HTTP status 500")
        #expect(hits.total == 3)
        await fixture.stop()
    }

    @Test func tooManyRequestsAndRequestTimeoutAreRetried() async throws {
        let hits = HitCounter()
        let fixture = try await ClientFixture.start(router: webhookRouter(statuses: [429, 408, 204], hits: hits))
        let webhook = WebhookClient(client: fixture.client, policy: quickPolicy)
        try await webhook.postJSON(Array("{}".utf8), to: fixture.baseURL + "/hook")
        #expect(hits.total == 3)
        await fixture.stop()
    }

    @Test(arguments: [400, 401, 404, 410])
    func otherClientErrorsAreNotRetried(status: Int) async throws {
        let hits = HitCounter()
        let fixture = try await ClientFixture.start(router: webhookRouter(statuses: [status, 200], hits: hits))
        let webhook = WebhookClient(client: fixture.client, policy: quickPolicy)
        let error = await deliveryError { () async throws(WebhookDeliveryError) in
            try await webhook.postJSON(Array("{}".utf8), to: fixture.baseURL + "/hook")
        }
        #expect(error == WebhookDeliveryError(attempts: 1, lastFailure: "HTTP status \(status)"))
        #expect(hits.total == 1)
        await fixture.stop()
    }

    @Test func theBodyIsPostedAsJSONAndNeverAppearsInTheError() async throws {
        let server = try await ScriptedServer.start { _ in
            .send("HTTP/1.1 500 Oops\r\nContent-Length: 6\r\n\r\nsecret", close: true)
        }
        let client = try HTTPClient(group: server.group)
        let webhook = WebhookClient(client: client, policy: WebhookRetryPolicy(attempts: 2, initialBackoff: .zero))
        let body = #"{"body":"Your code is 123456"}"#
        let error = await deliveryError { () async throws(WebhookDeliveryError) in
            try await webhook.postJSON(Array(body.utf8), to: server.url + "/sms")
        }
        #expect(error?.attempts == 2)
        #expect(error.map { !"\($0)".contains("123456") && !"\($0)".contains("secret") } == true)
        let request = try #require(server.requests.first)
        #expect(request.hasPrefix("POST /sms HTTP/1.1\r\n"))
        #expect(request.contains("\r\nContent-Type: application/json\r\n"))
        #expect(request.contains("\r\nContent-Length: \(body.utf8.count)\r\n"))
        #expect(request.hasSuffix("\r\n\r\n" + body))
        await server.stop()
    }

    @Test func timeoutsAndRefusedConnectionsAreRetried() async throws {
        let silent = try await ScriptedServer.start { _ in .silence }
        let client = try HTTPClient(group: silent.group)
        let policy = WebhookRetryPolicy(attempts: 2, timeout: .milliseconds(100), initialBackoff: .milliseconds(10))
        let timedOut = await deliveryError { () async throws(WebhookDeliveryError) in
            try await WebhookClient(client: client, policy: policy).postJSON([], to: silent.url)
        }
        #expect(timedOut == WebhookDeliveryError(attempts: 2, lastFailure: "no complete response within 0.1 seconds"))
        #expect(silent.requests.count == 2)

        let port = try await unusedPort()
        let refused = await deliveryError { () async throws(WebhookDeliveryError) in
            try await WebhookClient(client: client, policy: policy).postJSON([], to: "http://127.0.0.1:\(port)/")
        }
        #expect(refused == WebhookDeliveryError(attempts: 2, lastFailure: "connection refused by 127.0.0.1:\(port)"))
        await silent.stop()
    }

    @Test func anInvalidURLIsNotRetried() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let webhook = WebhookClient(client: try HTTPClient(group: group), policy: quickPolicy)
        let error = await deliveryError { () async throws(WebhookDeliveryError) in
            try await webhook.postJSON([], to: "hooks.example.com/sms")
        }
        #expect(error?.attempts == 1)
        #expect(error?.lastFailure.hasPrefix("invalid URL") == true)
        group.shutdown()
    }

    @Test func thePolicyDoublesItsBackoffAndNeedsOneAttempt() {
        let policy = WebhookRetryPolicy()
        #expect(policy.attempts == 3)
        #expect(policy.timeout == .seconds(5))
        #expect(policy.backoff(beforeAttempt: 1) == .zero)
        #expect(policy.backoff(beforeAttempt: 2) == .milliseconds(500))
        #expect(policy.backoff(beforeAttempt: 3) == .seconds(1))
        #expect(policy.backoff(beforeAttempt: 4) == .seconds(2))
        #expect(WebhookRetryPolicy(attempts: 0).attempts == 1)
        #expect(WebhookRetryPolicy(initialBackoff: .seconds(-1)).initialBackoff == .zero)
        #expect(WebhookClient.isRetryable(status: 503))
        #expect(!WebhookClient.isRetryable(status: 409))
    }
}
