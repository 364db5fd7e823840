/// The open challenge of a login flow, sealed under the master key while the flow waits for a code: the factor
/// session, and what the page shows (the TOTP key and QR code, which are secrets until enrolment ends).
struct LoginChallenge: Codable, Sendable, Equatable {
    /// The factor session (`sessionInfo`) the code is checked under.
    var sessionInfo: String?
    /// The number being enrolled, for a resend.
    var phoneNumber: String?
    /// The TOTP key in base32.
    var manualEntryKey: String?
    /// The TOTP QR code as SVG, rendered by the server.
    var qrCodeSVG: String?
    /// What the factor asks the user to do.
    var instructions: String?
}
