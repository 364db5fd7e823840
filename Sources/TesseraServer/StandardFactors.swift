public import MultiFactor
public import PhoneCodes
import PhoneFactor
import RecoveryCodeFactor
import TOTPFactor
import TesseraCore
public import TesseraPostgres

/// The factor plugins this server offers. A new plugin is registered by adding it to the one list in ``factors``;
/// its migrations then run with the others, its members appear in the multi-factor methods, its `amr` in tokens,
/// and its pages (``FactorDescriptor/loginPages``) in the browser.
public enum StandardFactors {
    /// The offered factors, in order; the SMS factor sends its codes through `phoneCodes`.
    public static func factors(phoneCodes: SMSCodeIssuer) -> [any Factor] {
        [TOTPFactor(), PhoneFactor(codes: phoneCodes), RecoveryCodeFactor()]
    }

    /// The registry of every offered factor but those named in `remote` (which run as factor services); the SMS
    /// factor sends its codes through `phoneCodes`.
    public static func registry(phoneCodes: SMSCodeIssuer, remote: Set<String> = []) -> FactorRegistry {
        FactorRegistry(factors(phoneCodes: phoneCodes).filter { !remote.contains($0.descriptor.id.rawValue) })
    }

    /// The migrations of every offered factor, in the registry's order: read from the descriptors of a registry
    /// that is never asked to send anything. The SMS factor declares none: module `phone`, which the SMS factor
    /// and phone sign-in share, is `PhoneCodes`' and listed by ``SchemaMigrations`` right after these.
    public static let migrations: [Migration] =
        registry(phoneCodes: SMSCodeIssuer(sender: UnusedSMSSender(), appVerification: .disabledForTesting))
        .migrations
}

/// The sender of the registry ``StandardFactors/migrations`` is read from, which sends nothing.
private struct UnusedSMSSender: SMSSender {
    func send(_ message: SMSMessage) async throws {
        throw AuthError(.deliveryFailed, "This registry only lists migrations.")
    }
}
