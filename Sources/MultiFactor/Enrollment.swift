public import FoundationEssentials
public import TesseraJSON

/// A stored second-factor enrolment, as the router hands it to its factor, with the state the factor returned at
/// enrolment (unsealed by the router).
public struct Enrollment: Sendable, Equatable {
    /// The enrolment id (`mfaEnrollmentId`).
    public var id: String
    /// The owner.
    public var userID: String
    /// The factor it belongs to.
    public var factor: FactorID
    /// The name the user gave it.
    public var displayName: String?
    /// When it was finalized.
    public var enrolledAt: Date
    /// What the owner may see of it, as its factor returned it at enrolment (`{"phoneInfo": "+1…"}`).
    public var publicInfo: JSONObject
    /// What a sign-in challenge shows of it, when its factor returned a masked form.
    public var maskedInfo: JSONObject?
    /// The factor's secret state for it (``EnrolledFactor/state``); empty when the factor keeps none.
    public var state: [UInt8]

    /// An enrolment with every part given.
    public init(
        id: String, userID: String, factor: FactorID, displayName: String?, enrolledAt: Date, publicInfo: JSONObject,
        maskedInfo: JSONObject? = nil, state: [UInt8] = []
    ) {
        self.id = id
        self.userID = userID
        self.factor = factor
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.publicInfo = publicInfo
        self.maskedInfo = maskedInfo
        self.state = state
    }
}
