/// A webhook that could not be delivered after every attempt its ``WebhookRetryPolicy`` allowed, or after a
/// failure that retrying cannot fix (an invalid URL, a 4xx other than 408 and 429).
public struct WebhookDeliveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// How many attempts were made.
    public let attempts: Int
    /// What went wrong the last time: a transport failure or the HTTP status. Never the request body.
    public let lastFailure: String

    /// Creates the error.
    public init(attempts: Int, lastFailure: String) {
        self.attempts = attempts
        self.lastFailure = lastFailure
    }

    /// One line for logs.
    public var description: String {
        "webhook not delivered after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(lastFailure)"
    }
}
