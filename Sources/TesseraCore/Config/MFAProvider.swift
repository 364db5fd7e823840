/// A second-factor provider named in `enabledProviders`. TOTP is not listed here: it is enabled through a
/// ``ProviderConfig`` entry instead, as Identity Toolkit does.
public enum MFAProvider: String, Sendable, Hashable, CaseIterable {
    /// Codes sent by SMS to an enrolled phone number.
    case phoneSMS = "PHONE_SMS"
}
