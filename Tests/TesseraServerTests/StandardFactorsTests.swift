import MultiFactor
import PhoneCodes
import TesseraCore
import TesseraServer
import Testing

/// ``StandardFactors`` keeps one list: the migrations the migrator reads are those of the registry the server runs.
@Suite struct StandardFactorsTests {
    /// Sends nothing; the registry is only inspected.
    struct SilentSender: SMSSender {
        func send(_ message: SMSMessage) async throws {}
    }

    @Test func theMigrationsAreThoseOfTheRegisteredFactorsInOrder() {
        let registry = StandardFactors.registry(
            phoneCodes: SMSCodeIssuer(sender: SilentSender(), appVerification: .disabledForTesting))
        #expect(registry.migrations == StandardFactors.migrations)
        #expect(registry.factors.map(\.descriptor.id.rawValue) == ["totp", "phone", "recovery"])
    }

    @Test func aFactorRunAsAServiceIsLeftOutOfTheBuiltInRegistry() {
        let registry = StandardFactors.registry(
            phoneCodes: SMSCodeIssuer(sender: SilentSender(), appVerification: .disabledForTesting), remote: ["phone"])
        #expect(registry.factors.map(\.descriptor.id.rawValue) == ["totp", "recovery"])
    }
}
