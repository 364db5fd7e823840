public import Logging

/// Writes e-mail to the log instead of sending it, for deployments without an e-mail webhook.
///
/// The link holds a secret code, so it is logged only in development mode (no master key). In production mode
/// the log says that a message could not be delivered, and to whom only by domain.
public struct LogEmailSender: EmailSender {
    private let logger: Logger
    private let revealsLinks: Bool

    /// A sender logging to `logger`; `revealsLinks` only in development mode.
    public init(logger: Logger, revealsLinks: Bool) {
        self.logger = logger
        self.revealsLinks = revealsLinks
    }

    /// Logs `message` (with its link only in development mode).
    public func send(_ message: EmailMessage) async throws {
        if revealsLinks {
            logger.notice(
                "e-mail (no webhook; development mode)",
                metadata: [
                    "to": .string(message.to), "kind": .string(message.kind), "link": .string(message.link),
                ])
        } else {
            let domain = message.to.split(separator: "@").last.map(String.init) ?? "?"
            logger.warning(
                "e-mail not delivered: no --email-webhook-url is configured",
                metadata: ["to-domain": .string(domain), "kind": .string(message.kind)])
        }
    }
}
