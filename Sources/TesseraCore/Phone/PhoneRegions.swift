/// The CLDR region of a phone number, from its country calling code and leading digits, and the SMS region check of
/// API §4 built on it.
public enum PhoneRegions {
    /// The CLDR region of an E.164 number: a two-letter code such as `US`, or `001` for a non-geographic code such
    /// as +800 or +882. Nil when the text is not E.164 as `PhoneNumber.isE164` defines it, or when its country
    /// calling code is not assigned.
    ///
    /// A shared calling code is resolved by the leading digits of the national number the way libphonenumber's
    /// metadata resolves it (+1 by area code: Canada, the Caribbean and Pacific members, else US; +7 6 and 7
    /// Kazakhstan, else Russia; +44 Guernsey, Jersey, Isle of Man blocks, else GB; …). Only the leading digits are
    /// read: the number's length and range are not checked against the region's numbering plan. Saint Barthélemy
    /// and Saint Martin share Guadeloupe's numbers and are returned as `GP`.
    public static func region(of e164: String) -> String? {
        guard PhoneNumber.isE164(e164) else { return nil }
        return CallingCodeIndex.shared.region(ofDigits: e164.dropFirst())
    }

    /// Throws unless SMS may be sent to the number under the configuration.
    ///
    /// A number that is not E.164 (`+`, then 8 to 15 digits, the first not `0`) is `INVALID_PHONE_NUMBER` saying
    /// so; a number whose region the configuration denies is `INVALID_PHONE_NUMBER` "region not allowed". A number
    /// without a region (unassigned calling code) is allowed under `allowByDefault` and denied under
    /// `allowlistOnly`; so is a non-geographic (`001`) number, as configured region lists hold two-letter codes only.
    /// The error detail never contains the number.
    public static func check(_ e164: String, against config: SMSRegionConfig) throws(AuthError) {
        guard PhoneNumber.isE164(e164) else {
            throw AuthError(.invalidPhoneNumber, "phone number must be E.164: + then 8 to 15 digits, the first not 0")
        }
        let allowed: Bool
        if let region = region(of: e164) {
            allowed = config.allows(region: region)
        } else {
            switch config {
            case .allowByDefault: allowed = true
            case .allowlistOnly: allowed = false
            }
        }
        guard allowed else { throw AuthError(.invalidPhoneNumber, "region not allowed") }
    }
}
