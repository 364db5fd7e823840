public import FoundationEssentials

/// The session the router opened for a factor's start step: the opaque `sessionInfo` the client gets back (the
/// factor puts it into its result) and when it expires. The router stores only its hash.
public struct FactorSession: Sendable {
    /// The handle the client sends back at finalize.
    public let sessionInfo: String
    /// The end of the session.
    public let expiresAt: Date

    /// A session description.
    public init(sessionInfo: String, expiresAt: Date) {
        self.sessionInfo = sessionInfo
        self.expiresAt = expiresAt
    }
}
