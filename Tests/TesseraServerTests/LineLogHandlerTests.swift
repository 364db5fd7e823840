import Logging
import Synchronization
import TesseraServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The process's log handler writes, line for line, what swift-log's `StreamLogHandler` writes (its format is what
/// operators and the tests that read server logs know), but for the time, which both take from the clock.
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
        #expect(pipe(&descriptors) == 0)
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
}
