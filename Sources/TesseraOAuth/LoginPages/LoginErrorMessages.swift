import TesseraCore
import TesseraHTTP

/// What the login pages say about an error of the router, and with which status. Wrong e-mail and wrong password
/// read the same (INVALID_LOGIN_CREDENTIALS never says which); waits are given in words.
enum LoginErrorMessages {
    /// Reasons after which the flow's credential is gone or too old: the user must sign in again.
    static let restartReasons: Set<AuthReason> = [
        .invalidMFAPendingCredential, .credentialTooOldLoginAgain, .tokenExpired, .invalidIDToken, .userNotFound,
        .missingMFAPendingCredential, .missingIDToken, .tenantIDMismatch,
    ]

    /// The errors to show for `error`, and the page's status.
    static func describe(_ error: AuthError) -> (FormErrors, HTTPStatus) {
        switch error.reason {
        case .invalidLoginCredentials:
            return (.field("password", "The e-mail address or the password is not correct."), .unauthorized)
        case .tooManyAttemptsTryLater:
            return (
                .general(LocalizedText("Too many attempts. Try again in {wait}.", wait: error.retryAfter ?? 0)),
                HTTPStatus(code: 429)
            )
        case .quotaExceeded:
            return (
                .general(LocalizedText("Too many codes were sent. Try again in {wait}.", wait: error.retryAfter ?? 0)),
                HTTPStatus(code: 429)
            )
        case .invalidCode:
            return (.field("code", "The code is not correct."), .badRequest)
        case .missingCode:
            return (.field("code", "Enter the code."), .badRequest)
        case .sessionExpired, .invalidSessionInfo, .missingSessionInfo:
            return (.field("code", "This code has expired or was replaced. Send a new code."), .badRequest)
        case .userDisabled:
            return (.general("This account has been disabled."), .forbidden)
        case .invalidPhoneNumber where error.detail.contains("region"):
            return (.field("phoneNumber", "SMS cannot be sent to this country or region."), .badRequest)
        case .invalidPhoneNumber, .missingPhoneNumber:
            return (
                .field("phoneNumber", "Enter the number in international format, for example +15555550100."),
                .badRequest
            )
        case .secondFactorExists:
            return (.field("phoneNumber", "This is already one of your second factors."), .badRequest)
        case .invalidEmail:
            return (.general("Check the e-mail address and try again."), .badRequest)
        case .unverifiedEmail:
            return (
                .general(
                    LocalizedText(
                        "Verify your e-mail address before you set up a second factor: open the link we sent you, "
                            + "then sign in again.")),
                .forbidden
            )
        case .secondFactorLimitExceeded:
            return (.general("You have the most second factors an account may have."), .badRequest)
        case .operationNotAllowed:
            return (.general("This method is not available. Choose another one."), .badRequest)
        case .appNotVerified, .missingAppCredential, .invalidAppCredential:
            return (.general("SMS cannot be sent to this number from this server."), .badRequest)
        case .deliveryFailed:
            return (.general("The code could not be sent. Try again."), .serviceUnavailable)
        case .factorServiceUnavailable:
            return (
                .general("This method is unavailable right now. Try again or choose another one."),
                .serviceUnavailable
            )
        case .mfaEnrollmentNotFound, .missingMFAEnrollmentID:
            return (.field("mfaEnrollmentId", "Choose one of the methods."), .badRequest)
        default:
            return (.general("Something went wrong. Try again."), .badRequest)
        }
    }
}
