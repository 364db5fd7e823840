/// The open challenge of a login flow, sealed under the master key while the flow waits for a code: the factor
/// session, and what the page shows (a TOTP key and QR code are secrets until enrolment ends).
struct LoginChallenge: Codable, Sendable, Equatable {
    /// The factor session (`sessionInfo`) the code is checked under.
    var sessionInfo: String?
    /// What the user typed into the enrolment fields (field name → normalized value), for the page's instructions
    /// and a resend.
    var fields: [String: String]?
    /// A key to type into an app, from the factor's display (the TOTP key in base32).
    var manualEntryKey: String?
    /// A QR code as SVG, from the factor's display.
    var qrCodeSVG: String?
    /// What the factor asks the user to do.
    var instructions: String?
}
