/// The stable name of a second factor (`phone`, `totp`): stored with each enrolment, written into ID tokens as
/// `sign_in_second_factor`, and the key under which the registry finds the factor's plugin.
public struct FactorID: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name.
    public let rawValue: String

    /// A factor id with this name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A factor id written as a literal.
    public init(stringLiteral value: String) { rawValue = value }

    /// The name.
    public var description: String { rawValue }
}
