import Testing

@testable import TesseraHTTP

/// The connection's queue of the machine's actions, fed events as the connection feeds it.
@Suite struct HTTPServerConnectionDriverTests {
    typealias Action = HTTPConnectionStateMachine.Action

    func taken(_ driver: inout HTTPServerConnection.Driver) -> [String] {
        var names: [String] = []
        while let action = driver.nextAction() { names.append("\(action)") }
        return names
    }

    @Test func actionsOfAnEventFedWhileOthersAreTakenQueueBehindThemInOrder() {
        var driver = HTTPServerConnection.Driver(machine: HTTPConnectionStateMachine())
        #expect(driver.feed { _, pending in pending += [Action.pauseReading, .resumeReading] })
        #expect(driver.nextAction().map { "\($0)" } == "pauseReading")
        // Performing that action fed the machine again: its caller takes nothing, its action waits behind the other.
        #expect(!driver.feed { _, pending in pending.append(.cancelTimer) })
        #expect(taken(&driver) == ["resumeReading", "cancelTimer"])
        // With the queue empty, the next event's caller takes its actions again, from the first.
        #expect(driver.feed { _, pending in pending.append(.close) })
        #expect(taken(&driver) == ["close"])
    }

    @Test func aReleasedConnectionFeedsTheMachineNothing() {
        var driver = HTTPServerConnection.Driver(machine: HTTPConnectionStateMachine())
        driver.released = true
        var fed = false
        #expect(!driver.feed { _, _ in fed = true })
        #expect(!fed && driver.nextAction() == nil)
    }
}
