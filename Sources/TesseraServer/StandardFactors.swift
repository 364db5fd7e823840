public import MultiFactor
import TOTPFactor

/// The factor plugins this server offers. A new plugin is registered by adding it here; its migrations then run
/// with the others and its members appear in the multi-factor methods.
public enum StandardFactors {
    /// The registry of every offered factor.
    public static let registry = FactorRegistry([TOTPFactor()])
}
