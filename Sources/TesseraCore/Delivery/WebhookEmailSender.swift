public import Logging
public import TesseraHTTP
import TesseraJSON

/// Delivers e-mail to `--email-webhook-url` as the JSON of API §8, retried with backoff by the
/// ``WebhookClient``; when every attempt fails the call fails with `DELIVERY_FAILED`.
public struct WebhookEmailSender: EmailSender {
    private let webhook: WebhookClient
    private let url: String
    private let logger: Logger

    /// A sender posting to `url` through `webhook`.
    public init(webhook: WebhookClient, url: String, logger: Logger) {
        self.webhook = webhook
        self.url = url
        self.logger = logger
    }

    /// Posts `message`; the log names the failure, never the message or its link.
    public func send(_ message: EmailMessage) async throws {
        let body = try JSONValueEncoder().encode(message).serialized()
        do {
            try await webhook.postJSON(body, to: url)
        } catch {
            logger.error(
                "e-mail delivery failed",
                metadata: [
                    "kind": .string(message.kind), "attempts": .stringConvertible(error.attempts),
                    "error": .string(error.lastFailure),
                ])
            throw AuthError(.deliveryFailed, "The e-mail could not be delivered; try again later.")
        }
    }
}
