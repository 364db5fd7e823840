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
}
