/// Where a login flow stands; the login page shows the form of its step.
enum LoginStep: String, Sendable {
    /// E-mail and password.
    case password
    /// The user picks one of several second factors (`mfaEnrollmentId`).
    case chooseFactor = "choose_factor"
    /// The code of the chosen second factor (TOTP, or SMS sent as the page is first shown).
    case secondFactor = "second_factor"
    /// `MANDATORY` demands an enrolment: the user picks TOTP or a phone number.
    case chooseEnrollment = "choose_enrollment"
    /// TOTP enrolment: the QR code and key, then a code.
    case enrollTOTP = "enroll_totp"
    /// Phone enrolment: the code sent to the new number.
    case enrollPhone = "enroll_phone"
}
