/// The condition given to ``waitUntil(_:_:)`` still did not hold when its time was up.
public struct ConditionTimedOut: Error, CustomStringConvertible {
    public let limit: Duration
    public var description: String { "the condition did not hold within \(limit)" }
}

/// Polls `condition` every 10 ms until it holds; throws ``ConditionTimedOut`` after `limit`. For what another
/// server or session does in its own time (a change notice arriving), never to time a measurement.
public func waitUntil(
    _ limit: Duration = .seconds(5), _ condition: @Sendable () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw ConditionTimedOut(limit: limit) }
        try await Task.sleep(for: .milliseconds(10))
    }
}
