/// How a ``WebhookClient`` retries: how many attempts, how long each may take, and how long to wait between them.
///
/// The wait doubles after every failed attempt: with the defaults, attempts start at 0 s, 0.5 s and 1.5 s (plus
/// the time the attempts themselves took), and each may take 5 s (API §8).
public struct WebhookRetryPolicy: Sendable, Hashable {
    /// The most attempts made, at least 1.
    public var attempts: Int
    /// How long one attempt (DNS, connect, TLS, write, read) may take.
    public var timeout: Duration
    /// The wait before the second attempt; each later wait is twice the one before.
    public var initialBackoff: Duration

    /// Creates a policy; `attempts` below 1 is raised to 1 and a negative backoff is zero.
    public init(attempts: Int = 3, timeout: Duration = .seconds(5), initialBackoff: Duration = .milliseconds(500)) {
        self.attempts = max(1, attempts)
        self.timeout = timeout
        self.initialBackoff = max(.zero, initialBackoff)
    }

    /// The wait before attempt number `attempt` (counting from 1): zero before the first, then
    /// ``initialBackoff`` doubled for every attempt after the second.
    public func backoff(beforeAttempt attempt: Int) -> Duration {
        guard attempt > 1 else { return .zero }
        return initialBackoff * (1 << min(attempt - 2, 20))
    }
}
