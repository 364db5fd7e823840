/// Delivers e-mail: the webhook of `--email-webhook-url`, or the log without one (API §8).
public protocol EmailSender: Sendable {
    /// Delivers `message`, retrying as the sender sees fit; throws `DELIVERY_FAILED` when it finally cannot.
    func send(_ message: EmailMessage) async throws
}
