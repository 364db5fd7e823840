public import TesseraJSON

/// What a factor's enrolment start step produced: the result member for the client, the state the finalize step
/// needs (sealed at rest by the router under the master key until then), and what a login page shows.
public struct EnrollmentChallenge: Sendable {
    /// The value of the factor's ``FactorDescriptor/enrollmentResult`` member.
    public var response: JSONObject
    /// Handed back to ``Factor/finalizeEnrollment(_:state:enrollment:for:in:)``; never shown to the client.
    public var state: [UInt8]
    /// What a page shows the user (Kratos's split of display from verification).
    public var display: EnrollmentDisplay

    /// A challenge with every part given.
    public init(response: JSONObject, state: [UInt8], display: EnrollmentDisplay) {
        self.response = response
        self.state = state
        self.display = display
    }
}

/// How a login page presents an enrolment challenge: plain-text instructions, and optionally an inline SVG QR code
/// and a key to type in by hand.
public struct EnrollmentDisplay: Sendable, Equatable {
    /// What the user is asked to do.
    public var instructions: String
    /// A QR code as a self-contained SVG document (no scripts or external references).
    public var qrCodeSVG: String?
    /// A secret to type into an app when the QR code cannot be scanned.
    public var manualEntryKey: String?

    /// A display with every part given.
    public init(instructions: String, qrCodeSVG: String? = nil, manualEntryKey: String? = nil) {
        self.instructions = instructions
        self.qrCodeSVG = qrCodeSVG
        self.manualEntryKey = manualEntryKey
    }
}

/// What a factor's sign-in start step produced: the result member for the client and the state its verification
/// needs (sealed at rest by the router).
public struct SignInChallenge: Sendable {
    /// The value of the factor's ``SignInStartMembers/result`` member.
    public var response: JSONObject
    /// Handed back to ``Factor/verifySignIn(_:_:state:in:)``.
    public var state: [UInt8]

    /// A challenge with both parts given.
    public init(response: JSONObject, state: [UInt8]) {
        self.response = response
        self.state = state
    }
}
