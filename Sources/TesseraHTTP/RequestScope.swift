public import Logging

/// The request a task is handling, for its log lines: the server sets ``id`` around every handler, and
/// ``metadataProvider``, given to `LoggingSystem.bootstrap`, adds it as `request-id` to every line logged meanwhile,
/// by any logger of any module, so the lines of one request can be found together without passing a logger down.
public enum RequestScope {
    /// The id of the request being handled (``HTTPRequest/id``); nil outside a handler.
    @TaskLocal public static var id: String?

    /// `request-id` while a request is handled; nothing otherwise.
    public static let metadataProvider = Logger.MetadataProvider {
        guard let id else { return [:] }
        return ["request-id": .string(id)]
    }
}
