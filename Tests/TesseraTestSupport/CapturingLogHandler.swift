public import Logging
import Synchronization

/// A log handler that keeps every record, for tests that check what a component logs.
public struct CapturingLogHandler: LogHandler {
    /// One log record: level, message and metadata rendered as text.
    public struct Record: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]

        /// The message and every metadata value, for checking that a secret appears nowhere.
        public var fullText: String {
            ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }
    }

    /// Where the records of every copy of the handler go.
    public final class Store: Sendable {
        private let records = Mutex<[Record]>([])
        func append(_ record: Record) { records.withLock { $0.append(record) } }
        public var all: [Record] { records.withLock { $0 } }
    }

    let store: Store
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        store.append(
            Record(level: event.level, message: event.message.description, metadata: merged.mapValues { "\($0)" }))
    }

    /// A logger writing into a new store, and the store.
    public static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "test") { _ in CapturingLogHandler(store: store) }, store)
    }
}
