/// Whether a ``ProviderConfig`` entry switches its provider on.
public enum ProviderState: String, Sendable, Hashable, CaseIterable {
    /// The provider is on (while the MFA state is not `DISABLED`).
    case enabled = "ENABLED"
    /// The provider is off; its enrolments are kept, hidden and unusable.
    case disabled = "DISABLED"
}
