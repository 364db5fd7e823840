import MultiFactor
import PhoneCodes
import TesseraCore
import TesseraOAuth
import TesseraServer
import Testing

/// The `amr` of a sign-in: first-factor rules, and the second factor's value from its descriptor.
@Suite struct AuthenticationMethodsTests {
    let factors = StandardFactors.registry(
        phoneCodes: SMSCodeIssuer(sender: LoginSMSSender(), appVerification: .disabledForTesting))

    @Test func firstFactorsHaveFixedValues() {
        #expect(AuthenticationMethods.references(provider: "password", secondFactor: nil, factors: factors) == ["pwd"])
        #expect(AuthenticationMethods.references(provider: "phone", secondFactor: nil, factors: factors) == ["sms"])
    }

    @Test func theSecondFactorsValueIsItsDescriptors() {
        #expect(
            AuthenticationMethods.references(provider: "password", secondFactor: "totp", factors: factors)
                == ["pwd", "otp", "mfa"])
        #expect(
            AuthenticationMethods.references(provider: "password", secondFactor: "phone", factors: factors)
                == ["pwd", "sms", "mfa"])
        let withEmail = FactorRegistry(factors.factors + [EmailCodeFactor(mailbox: EmailCodeFactor.Mailbox())])
        #expect(
            AuthenticationMethods.references(provider: "password", secondFactor: "email", factors: withEmail)
                == ["pwd", "otp", "mfa"])
        #expect(
            AuthenticationMethods.references(provider: "password", secondFactor: "gone", factors: factors)
                == ["pwd", "gone", "mfa"])
    }
}
