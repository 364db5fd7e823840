/// Whether multi-factor authentication is off, offered, or required (API §4 rules 2 and 5).
public enum MFAState: String, Sendable, Hashable, CaseIterable {
    /// No second factor is offered or asked for.
    case disabled = "DISABLED"
    /// Users may enrol the enabled providers; those who did must pass one at sign-in.
    case enabled = "ENABLED"
    /// Like ``enabled``, and a user without a usable enrolment must enrol one.
    case mandatory = "MANDATORY"
}
