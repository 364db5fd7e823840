public import TesseraJSON

/// What `mfaEnrollment.start` produced: the RPC result (`{"totpSessionInfo": …}`) and what a page shows.
public struct EnrollmentStarted: Sendable {
    /// The result object of the RPC method.
    public var result: JSONObject
    /// What a login page shows the user.
    public var display: EnrollmentDisplay
}
