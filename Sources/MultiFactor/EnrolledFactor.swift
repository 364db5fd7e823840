public import TesseraJSON

/// What a factor's enrolment finalize step produced; the router stores all of it with the new enrolment.
public struct EnrolledFactor: Sendable, Equatable {
    /// What the owner sees of the enrolment (`{"totpInfo": {}}`, `{"phoneInfo": "+15555550100"}`).
    public var publicInfo: JSONObject
    /// What a sign-in challenge shows instead, when it differs (`{"phoneInfo": "+*******0100"}`).
    public var maskedInfo: JSONObject?
    /// The enrolment's secret state (a TOTP key), sealed by the router under the master key and handed back in
    /// ``Enrollment/state`` at every sign-in; empty when the factor needs none.
    public var state: [UInt8]
    /// The replay mark of the code that finalized the enrolment (a TOTP step): later codes must have greater ones.
    public var replayMark: Int64?
    /// What no other enrolment of this factor of the same user may have (a phone number):
    /// `SECOND_FACTOR_EXISTS`, enforced by the database across the fleet.
    public var uniqueKey: String?

    /// An enrolment record with every part given.
    public init(
        publicInfo: JSONObject, maskedInfo: JSONObject? = nil, state: [UInt8] = [], replayMark: Int64? = nil,
        uniqueKey: String? = nil
    ) {
        self.publicInfo = publicInfo
        self.maskedInfo = maskedInfo
        self.state = state
        self.replayMark = replayMark
        self.uniqueKey = uniqueKey
    }
}

/// What a factor's sign-in verification produced when the code was right.
public struct SignInVerdict: Sendable, Equatable {
    /// The replay mark of the accepted code, which the router records only if it is greater than the last one.
    public var replayMark: Int64?
    /// A replacement for the enrolment's state, when the factor's state moves (a counter); nil keeps it.
    public var state: [UInt8]?

    /// A verdict with every part given.
    public init(replayMark: Int64? = nil, state: [UInt8]? = nil) {
        self.replayMark = replayMark
        self.state = state
    }

    /// A right code with nothing to record.
    public static let accepted = SignInVerdict()
}
