import Logging
import Synchronization
import TesseraLoop
import TesseraServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The process's log handler writes, line for line, what swift-log's `StreamLogHandler` writes (its format is what
/// operators and the tests that read server logs know), but for the time, which both take from the clock.
extension EventLoop {
    /// Returns once the turn of the loop that runs a callback queued now has ended: after the work deferred to the
    /// end of that turn before it, such as writing the lines logged (``runBeforeNextPoll(_:)`` keeps the order).
    func endOfTurn() async {
        await withCheckedContinuation { continuation in
            execute { self.runBeforeNextPoll { continuation.resume() } }
        }
    }
}

@Suite(.serialized) struct LineLogHandlerTests {
    /// What a `StreamLogHandler` writes to it.
    final class Captured: TextOutputStream, @unchecked Sendable {
        let text = Mutex("")
        func write(_ string: String) { text.withLock { $0 += string } }
    }

    struct CapturedStream: TextOutputStream, Sendable {
        let captured: Captured
        mutating func write(_ string: String) { captured.write(string) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "the disk is full" }
    }

    /// One event as both handlers write it, without the leading time.
    static func lines(
        label: String, base: Logger.Metadata, provided: Logger.Metadata,
        _ emit: (inout Logger) -> Void
    ) throws -> (line: String, stream: String, time: String) {
        let provider = Logger.MetadataProvider { provided }
        var descriptors: [Int32] = [0, 0]
        // Close-on-exec: a child another test starts meanwhile (psql) would hold the write end, and the read below
        // would wait for its end of file as long as the child ran.
        #expect(pipe(&descriptors) == 0 && closeOnExec(descriptors))
        defer { close(descriptors[0]) }
        var ours = Logger(label: label) { label in
            var handler = LineLogHandler(label: label, descriptor: descriptors[1], metadataProvider: provider)
            handler.metadata = base
            return handler
        }
        emit(&ours)
        close(descriptors[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptors[0], &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer.prefix(count)
        }
        let captured = Captured()
        var theirs = Logger(label: label) { label in
            var handler = StreamLogHandler(
                label: label, stream: CapturedStream(captured: captured), metadataProvider: provider)
            handler.metadata = base
            return handler
        }
        emit(&theirs)
        let line = String(decoding: bytes, as: UTF8.self)
        let stream = captured.text.withLock { $0 }
        let time = String(line.prefix { $0 != " " })
        return (String(line.drop { $0 != " " }), String(stream.drop { $0 != " " }), time)
    }

    @Test(
        arguments: [
            ("tessera", [:], [:]),
            ("tessera", ["server": "public"], [:]),
            ("", ["server": "public"], ["request-id": "abc"]),
            ("tessera", ["b": "base", "z": "base"], ["b": "provided", "request-id": "abc"]),
            // One key from all three sources, one from the handler and the provider: the last source's value wins.
            ("tessera", ["z": "base", "client": "base", "a": "base"], ["z": "provided", "a": "provided"]),
        ] as [(String, Logger.Metadata, Logger.Metadata)])
    func writesWhatTheStreamHandlerWrites(label: String, base: Logger.Metadata, provided: Logger.Metadata) throws {
        let written = try Self.lines(label: label, base: base, provided: provided) { logger in
            logger.info(
                "authorization code issued",
                metadata: [
                    "z": "explicit", "client": "y_PHVSkEq", "nested": ["a", "b"], "map": ["k": "v"],
                    "count": .stringConvertible(42),
                ])
        }
        #expect(written.line == written.stream)
        #expect(written.line.hasSuffix(" authorization code issued\n"))
        // 2026-11-27T10:48:00+0000
        #expect(written.time.count == 24 && written.time.dropFirst(10).first == "T")
        let plain = try Self.lines(label: label, base: base, provided: provided) { logger in
            logger.warning("stopped")
        }
        #expect(plain.line == plain.stream)
    }

    @Test func anErrorIsWrittenAsTheStreamHandlerWritesIt() throws {
        let written = try Self.lines(label: "tessera", base: ["a": "1"], provided: [:]) { logger in
            logger.error("login page failed", error: Failure())
        }
        #expect(written.line == written.stream)
        #expect(written.line.contains("error.message=the disk is full"))
    }

    /// A pipe whose read end does not block, and a logger writing to its write end.
    struct LoggedPipe: @unchecked Sendable {
        let readEnd: Int32
        let writeEnd: Int32
        let logger: Logger

        init() {
            var descriptors: [Int32] = [0, 0]
            precondition(pipe(&descriptors) == 0 && closeOnExec(descriptors))
            _ = fcntl(descriptors[0], F_SETFL, fcntl(descriptors[0], F_GETFL) | O_NONBLOCK)
            (readEnd, writeEnd) = (descriptors[0], descriptors[1])
            let writeEnd = writeEnd
            logger = Logger(label: "tessera") { LineLogHandler(label: $0, descriptor: writeEnd) }
        }

        /// The messages of the lines written so far.
        func messages() -> [String] {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                if count <= 0 { break }
                bytes += buffer.prefix(count)
            }
            return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map {
                String($0.split(separator: "] ", maxSplits: 1).last ?? "")
            }
        }

        func close() {
            Glibc.close(readEnd)
            Glibc.close(writeEnd)
        }
    }

    @Test func linesLoggedOnALoopAreWrittenTogetherWhenItsTurnEnds() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let logged = LoggedPipe()
        defer { logged.close() }
        let duringTheTurn = try await loop.submit {
            for index in 1...3 { logged.logger.info("line \(index)") }
            return logged.messages()
        }
        #expect(duringTheTurn == [])
        await loop.endOfTurn()
        #expect(logged.messages() == ["line 1", "line 2", "line 3"])
        // Off the loop, a line is written as it is logged.
        logged.logger.info("line 4")
        #expect(logged.messages() == ["line 4"])
    }

    @Test func anErrorIsWrittenAtOnceWithTheLinesBeforeIt() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let logged = LoggedPipe()
        defer { logged.close() }
        let duringTheTurn = try await group.loops[0].submit {
            logged.logger.info("before")
            logged.logger.error("failed")
            logged.logger.info("after")
            return logged.messages()
        }
        #expect(duringTheTurn == ["before", "failed"])
        await group.loops[0].endOfTurn()
        #expect(logged.messages() == ["after"])
    }

    @Test func linesPendingWhenTheLoopStopsAreWritten() throws {
        let group = try EventLoopGroup(loopCount: 1)
        let logged = LoggedPipe()
        defer { logged.close() }
        group.loops[0].execute { logged.logger.info("last words") }
        group.shutdown()
        #expect(logged.messages() == ["last words"])
    }
}

/// Marks `descriptors` close-on-exec (Glibc's module has no `pipe2`); whether every one was.
private func closeOnExec(_ descriptors: [Int32]) -> Bool {
    descriptors.allSatisfy { fcntl($0, F_SETFD, FD_CLOEXEC) == 0 }
}
