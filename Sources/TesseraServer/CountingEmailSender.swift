public import TesseraCore
public import TesseraMetrics

/// An ``EmailSender`` that counts what the sender it wraps delivers and fails to deliver, as
/// `tessera_email_deliveries_total{kind, outcome}` with outcome `delivered` or `failed` (API §7).
///
/// A send that returns counts as delivered, one that throws as failed; the error is passed on unchanged.
public struct CountingEmailSender: EmailSender {
    /// The name of the counter family.
    public static let metricName = "tessera_email_deliveries_total"
    /// The kinds of e-mail the server sends, whose series exist from the start.
    public static let knownKinds = ["verify_email", "password_reset"]

    private let sender: any EmailSender
    private let counter: Counter
    private let outcomes: [String: DeliveryOutcomeSeries]

    /// Wraps `sender` and registers the counter family in `registry`, the series of ``knownKinds`` starting at 0.
    /// Make one per registry: each registers the family again.
    public init(wrapping sender: any EmailSender, registry: MetricsRegistry) {
        self.sender = sender
        counter = registry.counter(
            Self.metricName, help: "E-mail handed to the e-mail webhook (or the log), by kind and outcome.",
            labels: ["kind", "outcome"])
        var outcomes: [String: DeliveryOutcomeSeries] = [:]
        for kind in Self.knownKinds {
            outcomes[kind] = DeliveryOutcomeSeries(counter: counter, kind: kind)
        }
        self.outcomes = outcomes
    }

    /// Sends `message` through the wrapped sender and counts the outcome under its kind; rethrows its error. The
    /// kind is chosen by the server, never by a client, so its label values stay a closed set.
    public func send(_ message: EmailMessage) async throws {
        let series = outcomes[message.kind] ?? DeliveryOutcomeSeries(counter: counter, kind: message.kind)
        try await series.count { try await sender.send(message) }
    }
}
