/// The project's phone sign-in settings (`signIn.phoneNumber`).
public struct PhoneSignInConfig: Sendable, Hashable {
    /// Whether users may sign in with a phone number and an SMS code.
    public var enabled: Bool
    /// Test numbers (E.164) and the one code each accepts; at most ten.
    public var testPhoneNumbers: [String: String]

    /// Creates the settings; the defaults are phone sign-in on and no test numbers.
    public init(enabled: Bool = true, testPhoneNumbers: [String: String] = [:]) {
        self.enabled = enabled
        self.testPhoneNumbers = testPhoneNumbers
    }
}
