/// The reasons of API §10 that domain operations answer with, and the canonical status of each.
public enum AuthReason: String, Sendable, Hashable, CaseIterable {
    case invalidArgument = "INVALID_ARGUMENT"
    case missingIDToken = "MISSING_ID_TOKEN"
    case missingSessionInfo = "MISSING_SESSION_INFO"
    case missingCode = "MISSING_CODE"
    case missingPhoneNumber = "MISSING_PHONE_NUMBER"
    case missingMFAPendingCredential = "MISSING_MFA_PENDING_CREDENTIAL"
    case missingMFAEnrollmentID = "MISSING_MFA_ENROLLMENT_ID"
    case invalidIDToken = "INVALID_ID_TOKEN"
    case tokenExpired = "TOKEN_EXPIRED"
    case invalidRefreshToken = "INVALID_REFRESH_TOKEN"
    case invalidLoginCredentials = "INVALID_LOGIN_CREDENTIALS"
    case invalidCode = "INVALID_CODE"
    case invalidSessionInfo = "INVALID_SESSION_INFO"
    case invalidMFAPendingCredential = "INVALID_MFA_PENDING_CREDENTIAL"
    case invalidOOBCode = "INVALID_OOB_CODE"
    case sessionExpired = "SESSION_EXPIRED"
    case invalidPhoneNumber = "INVALID_PHONE_NUMBER"
    case weakPassword = "WEAK_PASSWORD"
    case invalidEmail = "INVALID_EMAIL"
    case invalidConfig = "INVALID_CONFIG"
    case invalidTestingPhoneNumber = "INVALID_TESTING_PHONE_NUMBER"
    case maximumTestPhoneNumberExceeded = "MAXIMUM_TEST_PHONE_NUMBER_EXCEEDED"
    case invalidRedirectURI = "INVALID_REDIRECT_URI"
    case emailExists = "EMAIL_EXISTS"
    case secondFactorExists = "SECOND_FACTOR_EXISTS"
    case phoneNumberExists = "PHONE_NUMBER_EXISTS"
    case userNotFound = "USER_NOT_FOUND"
    case tenantNotFound = "TENANT_NOT_FOUND"
    case mfaEnrollmentNotFound = "MFA_ENROLLMENT_NOT_FOUND"
    case clientNotFound = "CLIENT_NOT_FOUND"
    /// Not in API §10: `adminKeys.revoke` of an id that does not exist (docs/api-reference.md).
    case adminKeyNotFound = "ADMIN_KEY_NOT_FOUND"
    case unverifiedEmail = "UNVERIFIED_EMAIL"
    case unsupportedFirstFactor = "UNSUPPORTED_FIRST_FACTOR"
    case credentialTooOldLoginAgain = "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    case secondFactorLimitExceeded = "SECOND_FACTOR_LIMIT_EXCEEDED"
    case operationNotAllowed = "OPERATION_NOT_ALLOWED"
    case mfaEnrollmentRequired = "MFA_ENROLLMENT_REQUIRED"
    case userDisabled = "USER_DISABLED"
    case projectDisabled = "PROJECT_DISABLED"
    case tenantIDMismatch = "TENANT_ID_MISMATCH"
    case appNotVerified = "APP_NOT_VERIFIED"
    case missingAppCredential = "MISSING_APP_CREDENTIAL"
    case invalidAppCredential = "INVALID_APP_CREDENTIAL"
    case tooManyAttemptsTryLater = "TOO_MANY_ATTEMPTS_TRY_LATER"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case unauthenticated = "UNAUTHENTICATED"
    case permissionDenied = "PERMISSION_DENIED"
    case deliveryFailed = "DELIVERY_FAILED"
    /// A factor service did not answer, answered too late, too much, or not as the factor protocol says
    /// (`docs/factor-protocol.md`); the attempt is not counted against the user.
    case factorServiceUnavailable = "FACTOR_SERVICE_UNAVAILABLE"
    /// `factorServices.register` of an id that is registered already.
    case factorServiceExists = "FACTOR_SERVICE_EXISTS"
    /// A `factorServices.*` call names a service that is not registered.
    case factorServiceNotFound = "FACTOR_SERVICE_NOT_FOUND"

    /// The canonical class of errors of this reason (API §2 `data.status`), as its raw string.
    public var status: String {
        switch self {
        case .invalidIDToken, .tokenExpired, .invalidRefreshToken, .invalidLoginCredentials, .unauthenticated:
            "UNAUTHENTICATED"
        case .emailExists, .secondFactorExists, .phoneNumberExists, .factorServiceExists:
            "ALREADY_EXISTS"
        case .userNotFound, .tenantNotFound, .mfaEnrollmentNotFound, .clientNotFound, .adminKeyNotFound,
            .factorServiceNotFound:
            "NOT_FOUND"
        case .unverifiedEmail, .unsupportedFirstFactor, .credentialTooOldLoginAgain, .secondFactorLimitExceeded,
            .operationNotAllowed, .mfaEnrollmentRequired, .userDisabled, .projectDisabled, .tenantIDMismatch,
            .appNotVerified, .missingAppCredential, .invalidAppCredential:
            "FAILED_PRECONDITION"
        case .tooManyAttemptsTryLater, .quotaExceeded:
            "RESOURCE_EXHAUSTED"
        case .permissionDenied:
            "PERMISSION_DENIED"
        case .deliveryFailed, .factorServiceUnavailable:
            "UNAVAILABLE"
        default:
            "INVALID_ARGUMENT"
        }
    }
}
