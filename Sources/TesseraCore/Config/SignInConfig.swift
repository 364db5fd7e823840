/// The project's first-factor settings (`signIn`).
public struct SignInConfig: Sendable, Hashable {
    /// Whether `accounts.signUp` may create password accounts.
    public var allowPasswordSignup: Bool
    /// Phone sign-in and test numbers.
    public var phoneNumber: PhoneSignInConfig

    /// Creates the settings; the defaults allow password sign-up and phone sign-in.
    public init(allowPasswordSignup: Bool = true, phoneNumber: PhoneSignInConfig = PhoneSignInConfig()) {
        self.allowPasswordSignup = allowPasswordSignup
        self.phoneNumber = phoneNumber
    }
}
