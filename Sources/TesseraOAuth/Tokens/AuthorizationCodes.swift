public import FoundationEssentials
public import TesseraCrypto

/// Issuing authorization codes (API §6): sealed codes (``SealedAuthorizationCode``) that carry their grant, valid
/// 60 seconds; issuing writes nothing. Redeeming them is the token endpoint's job.
public enum AuthorizationCodes {
    /// How long a code may be redeemed after it is issued (API §9).
    public static let lifetime: TimeInterval = 60
    /// A new code for `grant`, sealed with `keys` (`CoreServices.codeKeys`).
    public static func issue(_ grant: AuthorizationGrant, now: Date, keys: KeyRing) throws -> String {
        try SealedAuthorizationCode.seal(grant, expiresAt: now.addingTimeInterval(lifetime), keys: keys)
    }
}
