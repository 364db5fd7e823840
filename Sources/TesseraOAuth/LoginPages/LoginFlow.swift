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
    /// The flow's step and completion; changed only by the transition methods below, which feed it their event.
    private(set) var machine: LoginFlowStateMachine
    /// The step the flow stands at.
    var step: LoginStep { machine.step }
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
        machine = LoginFlowStateMachine()
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
        machine = LoginFlowStateMachine(step: step, isCompleted: completedAt != nil)
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

    // The transitions. Each feeds its event to ``machine`` first, so an event the step does not allow throws and
    // changes nothing; then it sets what the new step holds.

    /// Phone sign-in (``LoginFlowStateMachine/Event/phoneSignInChosen``): the page asks for a number.
    mutating func choosePhoneSignIn() throws(LoginFlowRefusal) {
        try machine.apply(.phoneSignInChosen)
        clearChallenge()
    }

    /// Back to e-mail and password from the phone pages (``LoginFlowStateMachine/Event/passwordChosen``).
    mutating func choosePassword() throws(LoginFlowRefusal) {
        try machine.apply(.passwordChosen)
        clearChallenge()
    }

    /// A phone sign-in code went out at `sentAt` (``LoginFlowStateMachine/Event/phoneCodeSent``); `challenge` holds
    /// its `sessionInfo` and the number.
    mutating func awaitPhoneCode(_ challenge: LoginChallenge, sentAt: Date) throws(LoginFlowRefusal) {
        try machine.apply(.phoneCodeSent)
        self.challenge = challenge
        smsSentAt = sentAt
    }

    /// The first factor of `userID` passed and `MANDATORY` demands an enrolment, made with the enrolment-only
    /// `idToken` (``LoginFlowStateMachine/Event/enrollmentDemanded``).
    mutating func demandEnrollment(userID: String, idToken: String) throws(LoginFlowRefusal) {
        try machine.apply(.enrollmentDemanded)
        clearChallenge()
        self.userID = userID
        credential = idToken
        factors = []
    }

    /// The first factor of `userID` passed and one of `factors` (not empty) must follow, under the pending
    /// `credential` (``LoginFlowStateMachine/Event/secondFactorDemanded(choices:)``): a single factor is chosen at
    /// once, several are offered.
    mutating func demandSecondFactor(
        userID: String, credential: String, factors: [MFAEnrollment]
    ) throws(LoginFlowRefusal) {
        try machine.apply(.secondFactorDemanded(choices: factors.count))
        clearChallenge()
        self.userID = userID
        self.credential = credential
        self.factors = factors
        if factors.count == 1, let only = factors.first {
            enrollmentID = only.mfaEnrollmentId
            factor = only.factorID
        }
    }

    /// The second factor `enrollment` was chosen (``LoginFlowStateMachine/Event/factorChosen``).
    mutating func chooseFactor(_ enrollment: MFAEnrollment) throws(LoginFlowRefusal) {
        try machine.apply(.factorChosen)
        clearChallenge()
        enrollmentID = enrollment.mfaEnrollmentId
        factor = enrollment.factorID
    }

    /// Back to the choice of second factor (``LoginFlowStateMachine/Event/anotherFactorAsked``).
    mutating func chooseAnotherFactor() throws(LoginFlowRefusal) {
        try machine.apply(.anotherFactorAsked)
        clearChallenge()
    }

    /// An enrolment of the factor `factorID` started with `challenge`
    /// (``LoginFlowStateMachine/Event/enrollmentStarted``); `sentAt` when it sent a code (the code time of an
    /// earlier enrolment stays otherwise).
    mutating func startEnrollment(
        factorID: String, challenge: LoginChallenge, sentAt: Date?
    ) throws(LoginFlowRefusal) {
        try machine.apply(.enrollmentStarted)
        factor = factorID
        self.challenge = challenge
        if let sentAt { smsSentAt = sentAt }
    }

    /// The sign-in finished (``LoginFlowStateMachine/Event/signedIn``); the database's
    /// ``LoginFlows/complete(_:hash:now:)`` makes it so for good.
    mutating func complete() throws(LoginFlowRefusal) {
        try machine.apply(.signedIn)
    }

    /// Back to the password step, forgetting everything the first factor gave
    /// (``LoginFlowStateMachine/Event/restarted``).
    mutating func restart() throws(LoginFlowRefusal) {
        try machine.apply(.restarted)
        userID = nil
        credential = nil
        factors = []
        clearChallenge()
        browserSessionHash = nil
    }

    /// Forgets the chosen enrolment's challenge (a new factor is chosen, or a step ends).
    private mutating func clearChallenge() {
        enrollmentID = nil
        factor = nil
        challenge = nil
        smsSentAt = nil
    }
}
