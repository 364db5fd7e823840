import TesseraMetrics

/// The two series of one kind of message in a deliveries counter (labels `kind`, `outcome`), resolved once so that
/// counting a delivery does no lookup.
struct DeliveryOutcomeSeries: Sendable {
    /// `outcome="delivered"`.
    let delivered: CounterSeries
    /// `outcome="failed"`.
    let failed: CounterSeries

    /// The series of `kind` in `counter`, created at 0 so that they are rendered before the first delivery.
    init(counter: Counter, kind: String) {
        delivered = counter.series([kind, "delivered"])
        failed = counter.series([kind, "failed"])
    }

    /// Runs `send`, counting it as delivered when it returns and as failed when it throws (the error is passed on).
    func count(_ send: () async throws -> Void) async throws {
        do {
            try await send()
        } catch {
            failed.increment()
            throw error
        }
        delivered.increment()
    }
}
