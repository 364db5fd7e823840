public import Logging

/// Writes SMS to the log instead of sending them, for deployments without `--sms-webhook-url`.
///
/// The body holds the code, so it is logged only in development mode (no master key), where a developer reads the
/// code from the log. In production mode the log says that a message could not be delivered, naming the kind and
/// the masked number only.
public struct LogSMSSender: SMSSender {
    private let logger: Logger
    private let revealsCodes: Bool

    /// A sender logging to `logger`; `revealsCodes` only in development mode.
    public init(logger: Logger, revealsCodes: Bool) {
        self.logger = logger
        self.revealsCodes = revealsCodes
    }

    /// Logs `message`: in development mode with the number, the kind, the language and the body; otherwise a
    /// warning with the masked number and the kind. Never fails.
    public func send(_ message: SMSMessage) async throws {
        if revealsCodes {
            logger.notice(
                "SMS (no webhook; development mode)",
                metadata: [
                    "to": .string(message.to), "kind": .string(message.kind.rawValue),
                    "language": .string(message.languageCode), "body": .string(message.body),
                ])
        } else {
            logger.warning(
                "SMS not delivered: no --sms-webhook-url is configured",
                metadata: ["to": .string(PhoneNumber.masked(message.to)), "kind": .string(message.kind.rawValue)])
        }
    }
}
