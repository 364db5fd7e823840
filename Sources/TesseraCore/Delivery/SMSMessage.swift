/// An SMS as the SMS webhook receives it (API §8): `{to, body, kind, tenantId?, languageCode}`. The code appears
/// in `body` only, so `body` must never be logged in production.
public struct SMSMessage: Codable, Sendable, Equatable {
    /// The recipient, an E.164 number.
    public var to: String
    /// The text to send, holding the code.
    public var body: String
    /// Why the message is sent.
    public var kind: SMSKind
    /// The tenant the code is for; nil at project level.
    public var tenantId: String?
    /// The language `body` is written in (as ``SMSTemplates`` chose it), such as `en` or `zh-hant`.
    public var languageCode: String

    /// Creates a message.
    public init(to: String, body: String, kind: SMSKind, tenantId: String?, languageCode: String) {
        self.to = to
        self.body = body
        self.kind = kind
        self.tenantId = tenantId
        self.languageCode = languageCode
    }
}
