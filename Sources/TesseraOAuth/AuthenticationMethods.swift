/// The `amr` values (RFC 8176) of a sign-in, as API §6 lists them: `pwd` for a password, `sms` for an SMS code,
/// `otp` for an authenticator app, and `mfa` when two factors were used.
public enum AuthenticationMethods {
    /// The `amr` of a sign-in whose first factor was `provider` (`password`, `phone`) and whose second factor, if
    /// any, was the factor `secondFactor` (`totp`, `phone`).
    public static func references(provider: String, secondFactor: String?) -> [String] {
        var methods = [method(of: provider)]
        if let secondFactor {
            methods.append(method(of: secondFactor))
            methods.append("mfa")
        }
        return methods
    }

    private static func method(of factor: String) -> String {
        switch factor {
        case "password": "pwd"
        case "phone": "sms"
        case "totp": "otp"
        default: factor
        }
    }
}
