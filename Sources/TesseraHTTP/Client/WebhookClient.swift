import TesseraLoop

/// Posts JSON to delivery webhooks (API §8), retrying with exponential backoff.
///
/// A 2xx answer counts as delivered. Transport failures (DNS, refused or broken connections, TLS, malformed
/// responses), timeouts, 5xx, 408 and 429 are retried as the ``WebhookRetryPolicy`` allows; any other status, an
/// invalid URL and a response over the size limit are final at once. The waits between attempts are timed by a
/// loop of the client's group, not by a sleeping thread.
public struct WebhookClient: Sendable {
    /// The client that sends each attempt.
    public let client: HTTPClient
    /// Attempts, per-attempt timeout and backoff.
    public let policy: WebhookRetryPolicy

    /// Creates a webhook client.
    public init(client: HTTPClient, policy: WebhookRetryPolicy = WebhookRetryPolicy()) {
        self.client = client
        self.policy = policy
    }

    /// Posts `body` with `Content-Type: application/json` to `url` and returns once a 2xx answer arrives. Throws
    /// ``WebhookDeliveryError`` with the number of attempts and the last failure when it cannot deliver; a task
    /// cancelled while waiting to retry stops retrying at once.
    public func postJSON(_ body: [UInt8], to url: String) async throws(WebhookDeliveryError) {
        let request = HTTPClientRequest(
            method: .post, url: url, headers: ["Content-Type": "application/json", "Accept": "*/*"], body: body)
        var attempt = 0
        var lastFailure = "no attempt was made"
        while attempt < policy.attempts {
            if attempt > 0 {
                do {
                    try await client.preferredLoop().sleep(for: policy.backoff(beforeAttempt: attempt + 1))
                } catch {
                    throw WebhookDeliveryError(attempts: attempt, lastFailure: "\(lastFailure) (retry cancelled)")
                }
            }
            attempt += 1
            do {
                let response = try await client.send(request, timeout: policy.timeout)
                if response.isSuccess { return }
                lastFailure = "HTTP status \(response.status.code)"
                guard Self.isRetryable(status: response.status.code) else { break }
            } catch {
                lastFailure = error.description
                guard error.isTransient else { break }
            }
        }
        throw WebhookDeliveryError(attempts: attempt, lastFailure: lastFailure)
    }

    /// Whether a non-2xx status is worth another attempt: 5xx, 408 (Request Timeout) and 429 (Too Many Requests).
    public static func isRetryable(status: Int) -> Bool {
        status >= 500 || status == 408 || status == 429
    }
}
