public import MultiFactor

/// The `amr` values (RFC 8176) of a sign-in, as API §6 lists them: `pwd` for a password, `sms` for a phone sign-in
/// code, the second factor's own value (its ``FactorDescriptor/amr``: `otp` for an authenticator app, `sms` for
/// an SMS code), and `mfa` when two factors were used.
public enum AuthenticationMethods {
    /// The `amr` of a sign-in whose first factor was `provider` (`password`, `phone`) and whose second factor, if
    /// any, was the factor `secondFactor` (`totp`, `phone`) of `factors`. A second factor no longer registered
    /// reads as its id.
    public static func references(provider: String, secondFactor: String?, factors: FactorRegistry) -> [String] {
        var methods = [method(ofProvider: provider)]
        if let secondFactor {
            methods.append(factors.factor(FactorID(rawValue: secondFactor))?.descriptor.amr ?? secondFactor)
            methods.append("mfa")
        }
        return methods
    }

    private static func method(ofProvider provider: String) -> String {
        switch provider {
        case "password": "pwd"
        case "phone": "sms"
        default: provider
        }
    }
}
