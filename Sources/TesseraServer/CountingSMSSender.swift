public import TesseraCore
public import TesseraMetrics

/// An ``SMSSender`` that counts what the sender it wraps delivers and fails to deliver, as
/// `tessera_sms_deliveries_total{kind, outcome}` with outcome `delivered` or `failed` (API §7).
///
/// A send that returns counts as delivered, one that throws as failed; the error is passed on unchanged.
public struct CountingSMSSender: SMSSender {
    /// The name of the counter family.
    public static let metricName = "tessera_sms_deliveries_total"

    private let sender: any SMSSender
    private let counter: Counter
    private let outcomes: [SMSKind: DeliveryOutcomeSeries]

    /// Wraps `sender` and registers the counter family in `registry`, every kind's series starting at 0. Make one
    /// per registry: each registers the family again.
    public init(wrapping sender: any SMSSender, registry: MetricsRegistry) {
        self.sender = sender
        counter = registry.counter(
            Self.metricName, help: "SMS handed to the SMS webhook (or the log), by kind and outcome.",
            labels: ["kind", "outcome"])
        var outcomes: [SMSKind: DeliveryOutcomeSeries] = [:]
        for kind in SMSKind.allCases {
            outcomes[kind] = DeliveryOutcomeSeries(counter: counter, kind: kind.rawValue)
        }
        self.outcomes = outcomes
    }

    /// Sends `message` through the wrapped sender and counts the outcome; rethrows its error.
    public func send(_ message: SMSMessage) async throws {
        let series = outcomes[message.kind] ?? DeliveryOutcomeSeries(counter: counter, kind: message.kind.rawValue)
        try await series.count { try await sender.send(message) }
    }
}
