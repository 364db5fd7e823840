public import Logging
import Synchronization
import TesseraLoop

#if canImport(Glibc)
import Glibc
#endif

/// The process's log handler: one line per event, written with one `write` to a file descriptor (standard error),
/// in the format of swift-log's `StreamLogHandler`:
///
/// ```
/// 2026-11-27T10:48:00+0000 info tessera: client=… request-id=… [TesseraOAuth] authorization code issued
/// ```
///
/// the local time to the second, the level, the label, the metadata sorted by key (the handler's, then the metadata
/// provider's, then the event's, each overriding the one before; an error as `error.message` and `error.type`), the
/// source module in brackets and the message. It costs a third of `StreamLogHandler`'s time: the metadata is merged
/// in a small array, not in dictionaries, the line is built in one byte buffer, and the time is formatted once a
/// second, not for each line. The native-app cycle logs a line per code.
///
/// On an event loop's thread, the lines of one turn of the loop are written together, before the loop waits for its
/// sockets again (``EventLoop/runBeforeNextPoll(_:)``): a busy loop writes a few lines with each `write` rather than
/// one, and no line waits longer than the callbacks of its turn. A line of level `error` or above is written at once,
/// with those before it. Off the loops (the main thread, the thread pool), each line is written as it is logged.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let descriptor: Int32

    /// A handler labelled `label`, writing to `descriptor` (standard error by default), with the metadata of
    /// `metadataProvider` on every line.
    public init(label: String, descriptor: Int32 = 2, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.descriptor = descriptor
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        guard let loop = EventLoop.current else {
            var line: [UInt8] = []
            line.reserveCapacity(256)
            append(event, to: &line)
            Self.write(line, to: descriptor)
            return
        }
        let pending = PendingLines.ofThisThread
        if pending.descriptor != descriptor {
            pending.flush()
            pending.descriptor = descriptor
        }
        if pending.bytes.isEmpty { loop.runBeforeNextPoll { PendingLines.ofThisThread.flush() } }
        append(event, to: &pending.bytes)
        if event.level >= .error || pending.bytes.count >= PendingLines.flushByteCount { pending.flush() }
    }

    /// Appends the event's line, ending in a line feed, to `line`.
    private func append(_ event: LogEvent, to line: inout [UInt8]) {
        LocalTimestamp.shared.append(to: &line)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: event.level.rawValue.utf8)
        if !label.isEmpty {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: label.utf8)
        }
        line.append(UInt8(ascii: ":"))
        let pairs = metadata(of: event)
        for (index, (key, value)) in pairs.enumerated() where index == pairs.count - 1 || pairs[index + 1].key != key {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            line.append(contentsOf: value.description.utf8)
        }
        line.append(contentsOf: " [".utf8)
        line.append(contentsOf: event.source.utf8)
        line.append(contentsOf: "] ".utf8)
        line.append(contentsOf: event.message.description.utf8)
        line.append(UInt8(ascii: "\n"))
    }

    /// Writes all of `bytes` to `descriptor`, as many `write`s as that takes; a failed write drops the rest (there is
    /// nowhere to report it).
    fileprivate static func write(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// The line's metadata: the handler's, the provider's, the event's and its error's pairs, sorted by key and, for
    /// one key, in that order (the sort is stable), so that the last pair of a key is the one to write: each source
    /// overrides the one before. Collected as they come and sorted once: merging each pair into the list as it came
    /// compared its key with every one before it and copied each pair it passed (about 7 900 instructions of the
    /// 15 500 of a line of five pairs, `make bench-callgrind`).
    private func metadata(of event: LogEvent) -> [(key: String, value: Logger.MetadataValue)] {
        var pairs: [(key: String, value: Logger.MetadataValue)] = []
        pairs.reserveCapacity(8)
        for pair in metadata { pairs.append(pair) }
        if let provided = metadataProvider?.get() {
            for pair in provided { pairs.append(pair) }
        }
        if let explicit = event.metadata {
            for pair in explicit { pairs.append(pair) }
        }
        if let error = event.error {
            pairs.append(("error.message", "\(error)"))
            pairs.append(("error.type", "\(String(reflecting: type(of: error)))"))
        }
        pairs.sort { $0.key < $1.key }
        return pairs
    }
}

/// The lines an event loop's thread has logged in the current turn of its loop, not yet written.
private final class PendingLines {
    /// Written before a line when this much is pending, however busy the turn.
    static let flushByteCount = 32 * 1024

    /// Where the lines go; a line for another descriptor writes these first.
    var descriptor: Int32 = -1
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(4096) }

    /// Writes the pending lines.
    func flush() {
        guard !bytes.isEmpty else { return }
        LineLogHandler.write(bytes, to: descriptor)
        bytes.removeAll(keepingCapacity: true)
    }

    /// The calling thread's pending lines, made on its first line; written when the thread ends, if still pending.
    static var ofThisThread: PendingLines {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<PendingLines>.fromOpaque(pointer).takeUnretainedValue()
        }
        let pending = PendingLines()
        pthread_setspecific(key, Unmanaged.passRetained(pending).toOpaque())
        return pending
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            let pending = Unmanaged<PendingLines>.fromOpaque(pointer).takeRetainedValue()
            pending.flush()
        }
        precondition(created == 0, "pthread_key_create failed: \(created)")
        return key
    }()
}

/// The local time as `%Y-%m-%dT%H:%M:%S%z`, formatted once a second and shared by every thread.
final class LocalTimestamp: Sendable {
    static let shared = LocalTimestamp()
    private let cache = Mutex<(second: time_t, text: [UInt8])>((-1, []))

    /// Appends the time now to `line`.
    func append(to line: inout [UInt8]) {
        let now = time(nil)
        let text = cache.withLock { cached -> [UInt8] in
            if cached.second != now { cached = (now, Self.format(now)) }
            return cached.text
        }
        line.append(contentsOf: text)
    }

    private static func format(_ second: time_t) -> [UInt8] {
        var second = second
        var parts = tm()
        guard localtime_r(&second, &parts) != nil else { return Array("<unknown>".utf8) }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return buffer.prefix(count).map { UInt8(bitPattern: $0) }
    }
}
