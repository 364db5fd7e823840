import ArgumentParser

extension MultiFactorSettings.State: ExpressibleByArgument {
    /// Accepts the contract's names in any case (`enabled`, `MANDATORY`).
    init?(argument: String) {
        self.init(rawValue: argument.uppercased())
    }
}
