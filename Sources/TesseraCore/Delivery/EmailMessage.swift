/// An e-mail as the e-mail webhook receives it (API §8): `{to, subject, text, kind, link, tenantId?}`. The
/// `link` carries the `oobCode`.
public struct EmailMessage: Codable, Sendable, Equatable {
    public var to: String
    public var subject: String
    public var text: String
    /// `verify_email`.
    public var kind: String
    public var link: String
    public var tenantId: String?
    /// The language the text is written in (`en`, `ja`, `ru`, `fr`).
    public var languageCode: String?

    /// A message with every part given.
    public init(
        to: String, subject: String, text: String, kind: String, link: String, tenantId: String?,
        languageCode: String? = nil
    ) {
        self.to = to
        self.subject = subject
        self.text = text
        self.kind = kind
        self.link = link
        self.tenantId = tenantId
        self.languageCode = languageCode
    }
}
