import FoundationEssentials
import TesseraCore

/// One authorization request while the user signs in (table `oauth_login_flows`). The flow id is a 256-bit secret
/// the pages carry in a hidden input (and the page URL); the database holds only its SHA-256. The flow belongs to
/// the browser whose cookie hashes to ``browserHash``. A pending credential or ID token of an unfinished sign-in
/// is held here, sealed, and never sent to the browser.
struct LoginFlow: Sendable {
    /// How long a flow lasts (10 minutes, as a pending credential).
    static let lifetime: TimeInterval = 600

    /// SHA-256 of the flow id.
    let hash: [UInt8]
    /// SHA-256 of the browser cookie it was started under.
    let browserHash: [UInt8]
    /// The request the code will be issued for.
    let request: AuthorizationRequest
    var step: LoginStep
    /// The user, once the first factor passed.
    var userID: String?
    /// The pending credential (second factor) or the enrolment-only ID token (MANDATORY), in clear once loaded.
    var credential: String?
    /// The enrolments the user may pick among (masked, as a challenge lists them, with their factor ids).
    var factors: [MFAEnrollment]
    /// The enrolment chosen for the second factor.
    var enrollmentID: String?
    /// The factor id of the chosen enrolment, or of the enrolment being made (`totp`, `phone`).
    var factor: String?
    /// The open factor challenge, in clear once loaded.
    var challenge: LoginChallenge?
    /// When the code of the current challenge was sent (a factor's start step: the SMS).
    var smsSentAt: Date?
    /// The SSO session this flow upgrades with a second factor, when it started from one.
    var browserSessionHash: [UInt8]?
    let expiresAt: Date
    let completedAt: Date?

    /// A new flow at the password step.
    init(hash: [UInt8], browserHash: [UInt8], request: AuthorizationRequest, now: Date) {
        self.hash = hash
        self.browserHash = browserHash
        self.request = request
        step = .password
        factors = []
        expiresAt = now.addingTimeInterval(Self.lifetime)
        completedAt = nil
    }

    /// A flow as stored.
    init(
        hash: [UInt8], browserHash: [UInt8], request: AuthorizationRequest, step: LoginStep, userID: String?,
        credential: String?, factors: [MFAEnrollment], enrollmentID: String?, factor: String?,
        challenge: LoginChallenge?, smsSentAt: Date?, browserSessionHash: [UInt8]?, expiresAt: Date, completedAt: Date?
    ) {
        self.hash = hash
        self.browserHash = browserHash
        self.request = request
        self.step = step
        self.userID = userID
        self.credential = credential
        self.factors = factors
        self.enrollmentID = enrollmentID
        self.factor = factor
        self.challenge = challenge
        self.smsSentAt = smsSentAt
        self.browserSessionHash = browserSessionHash
        self.expiresAt = expiresAt
        self.completedAt = completedAt
    }

    /// Back to the password step, forgetting everything the first factor gave.
    mutating func restart() {
        step = .password
        userID = nil
        credential = nil
        factors = []
        clearChallenge()
        browserSessionHash = nil
    }

    /// Forgets the chosen enrolment's challenge (a new factor is chosen, or a step ends).
    mutating func clearChallenge() {
        enrollmentID = nil
        factor = nil
        challenge = nil
        smsSentAt = nil
    }
}
