/// The fields `users.create` sets or `users.update` changes (API §5); nil leaves a field as it is (update) or
/// at its default (create). An empty `displayName` or `phoneNumber` removes it.
public struct UserChanges: Sendable, Equatable {
    public var email: String?
    public var password: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var displayName: String?
    public var disabled: Bool?
    /// The enrolments to keep, by id; every other enrolment of the user is removed. Nil keeps them all.
    public var keptEnrollmentIDs: [String]?

    /// A change set.
    public init(
        email: String? = nil, password: String? = nil, emailVerified: Bool? = nil, phoneNumber: String? = nil,
        displayName: String? = nil, disabled: Bool? = nil, keptEnrollmentIDs: [String]? = nil
    ) {
        self.email = email
        self.password = password
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.displayName = displayName
        self.disabled = disabled
        self.keptEnrollmentIDs = keptEnrollmentIDs
    }
}
