import Testing

@testable import TesseraPostgres

/// The connection's decisions without a database or a loop: events in, actions and state out.
@Suite struct PostgresConnectionStateMachineTests {
    private typealias Machine = PostgresConnectionStateMachine<Int>

    /// A comparable summary of an action.
    private enum Did: Equatable {
        case nothing
        case connect
        case tryNextHost(Int)
        case becomeReady(watchdogAfter: Duration)
        case armWatchdog(Duration)
        case disconnect(failing: [Int], message: String, reconnectAfter: Duration)
        case close(failing: [Int], message: String)

        init(_ action: Machine.Action) {
            switch action {
            case .none: self = .nothing
            case .connect: self = .connect
            case .tryNextHost(let attempt): self = .tryNextHost(attempt)
            case .becomeReady(let delay): self = .becomeReady(watchdogAfter: delay)
            case .armWatchdog(let delay): self = .armWatchdog(delay)
            case .disconnect(let failing, let message, let delay):
                self = .disconnect(failing: failing, message: message, reconnectAfter: delay)
            case .close(let failing, let message): self = .close(failing: failing, message: message)
            }
        }
    }

    /// A statement may run 5 s and its answer may take 2 s more: a 7 s deadline, checked every second. Reconnects
    /// wait 100 ms, doubling up to 1 s.
    private static let configuration = PostgresConfiguration(
        url: "", statementTimeout: .seconds(5), initialBackoff: .milliseconds(100), maximumBackoff: .seconds(1),
        answerGrace: .seconds(2))
    private static let start = ContinuousClock.now

    /// A ready machine with `attempts` attempts per connect.
    private func readyMachine(attempts: Int = 1) -> Machine {
        var machine = Machine(configuration: Self.configuration, attemptCount: attempts)
        _ = machine.connectRequested()
        _ = machine.established()
        return machine
    }

    @Test func aConnectTriesEveryHostInOrderThenFailsWithEveryReason() {
        var machine = Machine(configuration: Self.configuration, attemptCount: 3)
        #expect(machine.phase == .disconnected)
        #expect(machine.lastError == "not connected yet")
        #expect(!machine.hasFailedSinceStart)
        #expect(Did(machine.connectRequested()) == .connect)
        #expect(machine.phase == .connecting)
        #expect(Did(machine.connectRequested()) == .nothing)
        #expect(Did(machine.attemptFailed("a refused")) == .tryNextHost(1))
        #expect(Did(machine.attemptFailed("b timed out")) == .tryNextHost(2))
        #expect(machine.phase == .connecting)
        #expect(
            Did(machine.attemptFailed("c refused"))
                == .disconnect(
                    failing: [], message: "a refused; b timed out; c refused", reconnectAfter: .milliseconds(100)))
        #expect(machine.phase == .disconnected)
        #expect(machine.lastError == "a refused; b timed out; c refused")
        #expect(machine.hasFailedSinceStart)
        // A late report of the attempt (its timer, its socket) changes nothing.
        #expect(Did(machine.attemptFailed("late")) == .nothing)
        #expect(Did(machine.established()) == .nothing)

        // The next connect starts from the first host again, with no reasons from the last.
        #expect(Did(machine.connectRequested()) == .connect)
        #expect(Did(machine.attemptFailed("a again")) == .tryNextHost(1))
        #expect(Did(machine.established()) == .becomeReady(watchdogAfter: .seconds(1)))
        #expect(machine.phase == .ready)
        #expect(!machine.hasFailedSinceStart)
    }

    @Test func theBackoffGrowsWithFailuresInARowAndStartsOverOnceReady() {
        var machine = Machine(configuration: Self.configuration, attemptCount: 1)
        var delays: [Duration] = []
        for _ in 0..<6 {
            _ = machine.connectRequested()
            if case .disconnect(_, _, let delay) = machine.attemptFailed("refused") { delays.append(delay) }
        }
        #expect(
            delays == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1),
                .seconds(1),
            ])

        _ = machine.connectRequested()
        _ = machine.established()
        #expect(
            Did(machine.connectionLost("reset"))
                == .disconnect(failing: [], message: "reset", reconnectAfter: .milliseconds(100)))
        // Having been ready once, failing to connect again is not a failure at start.
        #expect(!machine.hasFailedSinceStart)
        _ = machine.connectRequested()
        #expect(
            Did(machine.connectionLost("cannot enter pipeline mode"))
                == .disconnect(failing: [], message: "cannot enter pipeline mode", reconnectAfter: .milliseconds(200)))
    }

    @Test func theWatchdogDropsOnlyARequestPastTheDeadline() {
        var machine = readyMachine()
        // Nothing in flight: nothing to wait for, however late.
        #expect(Did(machine.watchdogFired(now: Self.start + .seconds(60))) == .armWatchdog(.seconds(1)))
        machine.requestQueued(1, sentAt: Self.start)
        machine.requestQueued(2, sentAt: Self.start + .seconds(3))
        #expect(Did(machine.watchdogFired(now: Self.start + .seconds(7))) == .armWatchdog(.seconds(1)))
        #expect(machine.unansweredSince == nil)
        // The first is answered; the second has waited 6 s of its 7.
        machine.syncReceived(prepared: [], unprepared: [])
        #expect(Did(machine.watchdogFired(now: Self.start + .seconds(9))) == .armWatchdog(.seconds(1)))
        #expect(
            Did(machine.watchdogFired(now: Self.start + .milliseconds(10_001)))
                == .disconnect(
                    failing: [2], message: "the database did not answer within 7.0 seconds",
                    reconnectAfter: .milliseconds(100)))
        #expect(machine.unansweredSince == Self.start + .seconds(3))
        #expect(machine.phase == .disconnected)
        // A firing after the loss (the timer was already due) is ignored; the next connect forgets the silence.
        #expect(Did(machine.watchdogFired(now: Self.start + .seconds(11))) == .nothing)
        _ = machine.connectRequested()
        #expect(machine.unansweredSince == nil)

        // The oldest request decides, however recent the others.
        var busy = readyMachine()
        busy.requestQueued(1, sentAt: Self.start)
        busy.requestQueued(2, sentAt: Self.start + .seconds(6))
        #expect(
            Did(busy.watchdogFired(now: Self.start + .milliseconds(7_001)))
                == .disconnect(
                    failing: [1, 2], message: "the database did not answer within 7.0 seconds",
                    reconnectAfter: .milliseconds(100)))
        #expect(busy.unansweredSince == Self.start)
    }

    @Test func aLossFailsEveryRequestInFlightOnceAndForgetsPreparedStatements() {
        var machine = readyMachine()
        #expect(machine.statementName(for: "SELECT 1") == ("t0", true))
        machine.requestQueued(1, sentAt: Self.start)
        machine.requestQueued(2, sentAt: Self.start)
        machine.requestQueued(3, sentAt: Self.start)
        machine.syncReceived(prepared: ["SELECT 1"], unprepared: [])
        #expect(machine.inFlightCount == 2)
        #expect(machine.oldestRequest == 2)
        #expect(
            Did(machine.connectionLost("server closed the connection"))
                == .disconnect(
                    failing: [2, 3], message: "server closed the connection", reconnectAfter: .milliseconds(100)))
        #expect(machine.inFlightCount == 0)
        #expect(machine.oldestRequest == nil)
        #expect(Did(machine.connectionLost("again")) == .nothing)
        #expect(Did(machine.dropRequested("again")) == .nothing)
        #expect(machine.lastError == "server closed the connection")

        // The new session has none of the old one's statements: the name is new, and so is the Parse.
        _ = machine.connectRequested()
        _ = machine.established()
        #expect(machine.statementName(for: "SELECT 1") == ("t1", true))
        machine.requestQueued(4, sentAt: Self.start)
        #expect(
            Did(machine.dropRequested("LISTEN failed"))
                == .disconnect(failing: [4], message: "LISTEN failed", reconnectAfter: .milliseconds(100)))
    }

    @Test func closingIsFinal() {
        var machine = readyMachine()
        machine.requestQueued(1, sentAt: Self.start)
        #expect(
            Did(machine.closeRequested()) == .close(failing: [1], message: "the database client is shutting down"))
        #expect(machine.phase == .closed)
        #expect(machine.unavailableReason == "the database client is shutting down")
        #expect(Did(machine.closeRequested()) == .nothing)
        #expect(Did(machine.connectRequested()) == .nothing)
        #expect(Did(machine.attemptFailed("late")) == .nothing)
        #expect(Did(machine.established()) == .nothing)
        #expect(Did(machine.connectionLost("late")) == .nothing)
        #expect(Did(machine.dropRequested("late")) == .nothing)
        #expect(Did(machine.watchdogFired(now: Self.start + .seconds(60))) == .nothing)
        #expect(machine.phase == .closed)

        // Closed while waiting out the backoff: the reconnect that comes due does not connect.
        var waiting = readyMachine()
        _ = waiting.connectionLost("reset")
        _ = waiting.closeRequested()
        #expect(Did(waiting.connectRequested()) == .nothing)
        #expect(waiting.phase == .closed)
    }

    @Test func preparedStatementsAreReusedUnlessTheirParseDidNotRun() {
        var machine = readyMachine()
        #expect(machine.statementName(for: "SELECT 1") == ("t0", true))
        #expect(machine.statementName(for: "SELECT 2") == ("t1", true))
        machine.requestQueued(1, sentAt: Self.start)
        machine.syncReceived(prepared: ["SELECT 1", "SELECT 2"], unprepared: [])
        #expect(machine.statementName(for: "SELECT 1") == ("t0", false))
        #expect(machine.statementName(for: "SELECT 2") == ("t1", false))

        // A request whose first statement failed: the Parse of its second (new) statement never ran.
        #expect(machine.statementName(for: "SELECT 1/0") == ("t2", true))
        #expect(machine.statementName(for: "SELECT 3") == ("t3", true))
        machine.requestQueued(2, sentAt: Self.start)
        machine.syncReceived(prepared: ["SELECT 1/0"], unprepared: ["SELECT 3"])
        #expect(machine.statementName(for: "SELECT 3") == ("t4", true))
        #expect(machine.statementName(for: "SELECT 1/0") == ("t2", false))
        #expect(machine.statementName(for: "SELECT 1") == ("t0", false))
    }

    /// A request pipelined behind the one that sends a statement's `Parse` cannot count on it: that `Parse` does not
    /// run when a statement before it in its request fails, and a request that ran the pending name then failed with
    /// "prepared statement does not exist" (seen in `racingUsesOfOneSetNeverLoseAUse`). Until the first request is
    /// answered, later ones parse the statement again, unnamed.
    @Test func aStatementWhoseParseIsOnItsWayIsParsedAgainUnnamedUntilItsRequestIsAnswered() {
        var machine = readyMachine()
        #expect(machine.statementName(for: "INSERT 1") == ("t0", true))
        #expect(machine.statementName(for: "SELECT 1") == ("t1", true))
        machine.requestQueued(1, sentAt: Self.start)
        #expect(machine.statementName(for: "SELECT 1") == ("", true))
        machine.requestQueued(2, sentAt: Self.start)

        // The insert failed, so the select's Parse never ran: the name is forgotten, the next request makes a new one.
        machine.syncReceived(prepared: [], unprepared: ["INSERT 1", "SELECT 1"])
        machine.syncReceived(prepared: [], unprepared: [])
        #expect(machine.statementName(for: "SELECT 1") == ("t2", true))
        #expect(machine.statementName(for: "SELECT 1") == ("", true))
        machine.requestQueued(3, sentAt: Self.start)
        machine.syncReceived(prepared: ["SELECT 1"], unprepared: [])
        #expect(machine.statementName(for: "SELECT 1") == ("t2", false))

        // An unnamed Parse's outcome says nothing about the name; only the request with the named Parse confirms it.
        #expect(machine.statementName(for: "SELECT 2") == ("t3", true))
        machine.requestQueued(4, sentAt: Self.start)
        #expect(machine.statementName(for: "SELECT 2") == ("", true))
        machine.requestQueued(5, sentAt: Self.start)
        machine.syncReceived(prepared: ["SELECT 2"], unprepared: [])
        #expect(machine.statementName(for: "SELECT 2") == ("t3", false))
        machine.syncReceived(prepared: [], unprepared: [])
        #expect(machine.statementName(for: "SELECT 2") == ("t3", false))
    }

    /// Statement texts are keyed by their length and ends: long texts that differ only in the middle, or that are
    /// built at run time rather than written as literals, are still told apart and found again.
    @Test func longStatementsDifferingInTheMiddleAreTwoStatements() {
        var machine = readyMachine()
        let head = "SELECT " + String(repeating: "1, ", count: 100)
        let tail = String(repeating: ", 2", count: 100)
        let first = head + "'a'" + tail
        let second = head + "'b'" + tail
        #expect(machine.statementName(for: first) == ("t0", true))
        #expect(machine.statementName(for: second) == ("t1", true))
        machine.requestQueued(1, sentAt: Self.start)
        machine.syncReceived(prepared: [first, second], unprepared: [])
        #expect(machine.statementName(for: String(first.utf8.map { Character(UnicodeScalar($0)) })) == ("t0", false))
        #expect(machine.statementName(for: second) == ("t1", false))
        #expect(StatementText(first).hashValue == StatementText(second).hashValue)
        #expect(StatementText(first) != StatementText(second))
    }

    @Test func requestsAreAnsweredInOrderAndRefusedUnlessReady() {
        var machine = Machine(configuration: Self.configuration, attemptCount: 1)
        #expect(machine.unavailableReason == "not connected yet")
        _ = machine.connectRequested()
        #expect(machine.unavailableReason == "not connected yet")
        _ = machine.attemptFailed("connection refused")
        #expect(machine.unavailableReason == "connection refused")
        _ = machine.connectRequested()
        _ = machine.established()
        #expect(machine.unavailableReason == nil)

        // The queue empties and fills again many times over, always in order.
        var answered: [Int] = []
        for round in 0..<3 {
            for index in 0..<4 { machine.requestQueued(round * 4 + index, sentAt: Self.start) }
            while let oldest = machine.oldestRequest {
                answered.append(oldest)
                machine.syncReceived(prepared: [], unprepared: [])
            }
        }
        #expect(answered == Array(0..<12))
        #expect(machine.inFlightCount == 0)
        // A sync with nothing in flight (cannot happen) changes nothing.
        machine.syncReceived(prepared: [], unprepared: [])
        #expect(machine.inFlightCount == 0)
    }
}
