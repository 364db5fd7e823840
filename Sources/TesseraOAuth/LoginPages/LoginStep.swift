/// Where a login flow stands; the login page shows the form of its step. ``LoginFlowStateMachine`` says which
/// forms and events each step accepts and where they lead.
///
/// Flows stored under the retired steps `enroll_totp` and `enroll_phone` (before the pages were driven by the
/// factor registry) are not read on: ``LoginFlows`` restarts them at the password step. A flow lasts at most
/// 10 minutes, so only sign-ins under way during the upgrade see it.
enum LoginStep: String, Sendable {
    /// E-mail and password.
    case password
    /// The user picks one of several second factors (`mfaEnrollmentId`).
    case chooseFactor = "choose_factor"
    /// The code of the chosen second factor (sent as the page is first shown when its factor has a start step).
    case secondFactor = "second_factor"
    /// `MANDATORY` demands an enrolment: the user picks one of the enabled factors and fills in its fields.
    case chooseEnrollment = "choose_enrollment"
    /// The enrolment of the flow's factor: what its display shows (a QR code and key, instructions), then a code.
    case enrollFactor = "enroll_factor"
    /// Phone sign-in: the number to send a code to.
    case phoneNumber = "phone_number"
    /// Phone sign-in: the code sent to the number (the flow's challenge holds its `sessionInfo` and the number).
    case phoneCode = "phone_code"
}
