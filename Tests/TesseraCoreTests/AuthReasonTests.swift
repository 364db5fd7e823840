import TesseraCore
import Testing

@Suite struct AuthReasonTests {
    @Test func statusesFollowTheReasonTable() {
        #expect(AuthReason.invalidLoginCredentials.status == "UNAUTHENTICATED")
        #expect(AuthReason.emailExists.status == "ALREADY_EXISTS")
        #expect(AuthReason.tenantNotFound.status == "NOT_FOUND")
        #expect(AuthReason.tenantIDMismatch.status == "FAILED_PRECONDITION")
        #expect(AuthReason.tooManyAttemptsTryLater.status == "RESOURCE_EXHAUSTED")
        #expect(AuthReason.deliveryFailed.status == "UNAVAILABLE")
        #expect(AuthReason.permissionDenied.status == "PERMISSION_DENIED")
        #expect(AuthReason.missingIDToken.status == "INVALID_ARGUMENT")
        #expect(AuthReason.invalidConfig.status == "INVALID_ARGUMENT")
    }

    @Test func descriptionIsReasonThenDetail() {
        #expect(AuthError(.weakPassword, "too short").description == "WEAK_PASSWORD : too short")
        #expect(AuthError(.userNotFound).description == "USER_NOT_FOUND")
    }
}
