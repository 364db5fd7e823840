public import Logging
public import TesseraHTTP
import TesseraJSON

/// Delivers SMS to `--sms-webhook-url` as the JSON of API §8, retried with backoff by the ``WebhookClient``; when
/// every attempt fails the call fails with `DELIVERY_FAILED`.
public struct WebhookSMSSender: SMSSender {
    private let webhook: WebhookClient
    private let url: String
    private let logger: Logger

    /// A sender posting to `url` through `webhook`.
    public init(webhook: WebhookClient, url: String, logger: Logger) {
        self.webhook = webhook
        self.url = url
        self.logger = logger
    }

    /// Posts `message`. A failure is logged with the kind, the attempts, the last failure and the masked number,
    /// never the body (it holds the code), and thrown as `DELIVERY_FAILED`.
    public func send(_ message: SMSMessage) async throws {
        let body = try JSONValueEncoder().encode(message).serialized()
        do {
            try await webhook.postJSON(body, to: url)
        } catch {
            var metadata: Logger.Metadata = [
                "kind": .string(message.kind.rawValue), "to": .string(PhoneNumber.masked(message.to)),
                "attempts": .stringConvertible(error.attempts), "error": .string(error.lastFailure),
            ]
            if let tenantId = message.tenantId { metadata["tenant-id"] = .string(tenantId) }
            logger.error("SMS delivery failed", metadata: metadata)
            throw AuthError(.deliveryFailed, "The SMS could not be delivered; try again later.")
        }
    }
}
