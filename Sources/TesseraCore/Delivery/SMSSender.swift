/// Delivers SMS: the webhook of `--sms-webhook-url`, or the log without one (API §8).
public protocol SMSSender: Sendable {
    /// Delivers `message`, retrying as the sender sees fit; throws `AuthError(.deliveryFailed, …)` when it finally
    /// cannot.
    func send(_ message: SMSMessage) async throws
}
