public import FoundationEssentials
public import TesseraCore

/// Codes tried at a test phone number, over all its sessions. A test number's code is fixed and no send limit
/// applies to it, so without this anyone could start session after session and try its code five guesses at a
/// time; with it, 20 tries an hour per number and tenant, whatever the session, factor or method.
public enum TestNumberAttempts {
    /// Tries per test number and hour.
    static let limit = RateLimit(
        name: "test_number_code", limit: 20, window: 3600,
        refusal: "Too many codes were tried for this test number; try again later.")

    /// Counts one try at the code of `phoneNumber` when it is a test number of `config` (else does nothing);
    /// `TOO_MANY_ATTEMPTS_TRY_LATER` with `retryAfter` when the hour already holds 20. Call it before the code is
    /// checked.
    public static func take(_ db: some SQLRunner, config: EffectiveConfig, phoneNumber: String, now: Date) async throws
    {
        guard config.testPhoneNumbers[phoneNumber] != nil else { return }
        try await limit.admit(db, key: "\(config.tenantId ?? ""):\(phoneNumber)", now: now)
    }
}
