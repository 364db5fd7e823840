public import MultiFactor
public import PhoneFactor
public import TesseraPostgres
import TOTPFactor

/// The factor plugins this server offers. A new plugin is registered by adding it to both lists here; its
/// migrations then run with the others and its members appear in the multi-factor methods.
public enum StandardFactors {
    /// The registry of every offered factor; the SMS factor sends its codes through `phoneCodes`.
    public static func registry(phoneCodes: SMSCodeIssuer) -> FactorRegistry {
        FactorRegistry([TOTPFactor(), PhoneFactor(codes: phoneCodes)])
    }

    /// The migrations of every offered factor, in the registry's order.
    public static let migrations: [Migration] = TOTPMigrations.all + PhoneMigrations.all
}
