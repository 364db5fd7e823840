/// Why an SMS is sent: the `kind` of the SMS webhook's JSON (API §8), and the template a message is written from.
public enum SMSKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// A code for `accounts.signInWithPhoneNumber`.
    case phoneSignIn = "phone_sign_in"
    /// A code that confirms a phone number being enrolled as a second factor.
    case mfaEnrollment = "mfa_enrollment"
    /// A code for signing in with an enrolled phone as the second factor.
    case mfaSignIn = "mfa_sign_in"
}
