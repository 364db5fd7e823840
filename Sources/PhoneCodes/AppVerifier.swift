import TesseraCore

/// Checks an app credential before an SMS code is sent (API §4). A deployment plugs in a verifier that asks
/// reCAPTCHA, Apple or Google; the default, ``AcceptingAppVerifier``, accepts any non-empty token.
public protocol AppVerifier: Sendable {
    /// Returns when `credential` proves the app; throws `INVALID_APP_CREDENTIAL` (or `APP_NOT_VERIFIED` when the
    /// verifier judges the app itself untrusted) otherwise.
    func verify(_ credential: AppCredential, phoneNumber: String) async throws
}

/// The default verifier: any credential whose strings are all non-empty passes.
public struct AcceptingAppVerifier: AppVerifier {
    /// The verifier.
    public init() {}

    /// `INVALID_APP_CREDENTIAL` when a token (or the iOS receipt or secret) is empty.
    public func verify(_ credential: AppCredential, phoneNumber: String) async throws {
        let parts: [String] =
            switch credential {
            case .recaptcha(let token), .playIntegrity(let token): [token]
            case .ios(let receipt, let secret): [receipt, secret]
            }
        guard parts.allSatisfy({ !$0.isEmpty }) else {
            throw AuthError(.invalidAppCredential, "The app verification token is empty.")
        }
    }
}

/// How a deployment verifies apps (`--app-verification`): through a verifier, or not at all, which lets only test
/// numbers through.
public enum AppVerificationPolicy: Sendable {
    /// Every send needs a credential that `verifier` accepts: `MISSING_APP_CREDENTIAL` without one.
    case enforced(any AppVerifier)
    /// No credential is needed or checked, and only test numbers work: any other number is `APP_NOT_VERIFIED`.
    case disabledForTesting

    /// Checks the credential of a send to `phoneNumber` (a test number when `isTestNumber`). A send from the
    /// server's own login page (`verifiedByServer`) needs no credential when verification is enforced: the server is
    /// its own first-party app. Disabled for testing, it still reaches test numbers only.
    public func check(
        _ credential: AppCredential?, phoneNumber: String, isTestNumber: Bool, verifiedByServer: Bool = false
    ) async throws {
        switch self {
        case .disabledForTesting:
            guard isTestNumber else {
                throw AuthError(
                    .appNotVerified, "App verification is disabled for testing: only test phone numbers work.")
            }
        case .enforced(let verifier):
            guard !verifiedByServer else { return }
            guard let credential else {
                throw AuthError(.missingAppCredential, "appVerification is required to send an SMS code.")
            }
            try await verifier.verify(credential, phoneNumber: phoneNumber)
        }
    }
}
