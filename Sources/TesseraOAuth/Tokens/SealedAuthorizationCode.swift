public import FoundationEssentials
import TesseraCore
public import TesseraCrypto

/// An authorization code that carries its own grant (DESIGN §4, §7; API §6): the grant, its expiry and a version,
/// packed into bytes and sealed with AES-256-GCM under a key derived from the master key (``KeyRing/derived(purpose:)``,
/// whose envelope names the key, so codes issued before a master-key rotation still open until they expire), then
/// written in base64url. Issuing one writes nothing; the token endpoint spends it once by inserting its digest.
///
/// A code cannot be forged or altered (the tag covers every byte, the version and key id included) and says
/// nothing to whoever holds it but its length. To stay within the contract's 512 characters it holds the
/// SHA-256 of the redirect URI (the token request must present the same URI) rather than the URI, and identifiers
/// of the server's own form (22 base64url characters) as their 16 bytes.
public struct SealedAuthorizationCode: Sendable, Equatable {
    /// The longest code, in characters (API §6).
    public static let maximumLength = 512
    /// The format this code writes and reads.
    static let version: UInt8 = 1
    /// Bound into every seal, so an envelope made for another purpose under the same key never opens as a code.
    static let associatedData = Array("tessera authorization code".utf8)

    /// The grant, but for the redirect URI, which only its digest stands for.
    public var grant: AuthorizationGrant
    /// SHA-256 of the redirect URI of the authorization request.
    public var redirectURIDigest: [UInt8]
    /// When the code stops being redeemable.
    public var expiresAt: Date

    /// The code of `grant`, valid until `expiresAt`, sealed with `keys`.
    public static func seal(_ grant: AuthorizationGrant, expiresAt: Date, keys: KeyRing) throws -> String {
        var writer = ByteWriter()
        writer.byte(version)
        writer.identifier(grant.clientID)
        writer.identifier(grant.userID)
        writer.bytes(try Digest.sha256(grant.redirectURI))
        writer.string(grant.codeChallenge)
        writer.string(grant.scope)
        writer.optional(grant.nonce)
        writer.milliseconds(grant.authTime)
        writer.milliseconds(expiresAt)
        writer.string(grant.provider)
        writer.optional(grant.secondFactor)
        writer.optionalIdentifier(grant.secondFactorID)
        writer.optionalIdentifier(grant.signInFamilyID)
        return Base64URL.encode(try keys.seal(writer.output, associatedData: associatedData))
    }

    /// The code `text`, opened with `keys` and read back; `invalid_grant` for anything that is not a whole, untouched
    /// code sealed with a key of `keys`, spelled as the server wrote it (a code is spent by the digest of its text, so
    /// the same envelope with `=` padding is refused rather than spent a second time). Expiry is the caller's check.
    public static func open(_ text: String, keys: KeyRing) throws(OAuthError) -> SealedAuthorizationCode {
        let invalid = OAuthError(.invalidGrant, "the authorization code is invalid, expired or already used")
        guard text.utf8.count <= maximumLength, let envelope = try? Base64URL.decodeUnpadded(text),
            let plain = try? keys.open(envelope, associatedData: associatedData)
        else { throw invalid }
        var reader = ByteReader(plain)
        guard reader.byte() == version, let clientID = reader.identifier(), let userID = reader.identifier(),
            let digest = reader.bytes(32), let challenge = reader.string(), let scope = reader.string(),
            let nonce = reader.optional(), let authTime = reader.milliseconds(), let expiresAt = reader.milliseconds(),
            let provider = reader.string(), let secondFactor = reader.optional(),
            let secondFactorID = reader.optionalIdentifier(), let family = reader.optionalIdentifier(), reader.isAtEnd
        else { throw invalid }
        let grant = AuthorizationGrant(
            clientID: clientID, userID: userID, redirectURI: "", codeChallenge: challenge, scope: scope, nonce: nonce,
            authTime: authTime, provider: provider, secondFactor: secondFactor, secondFactorID: secondFactorID,
            signInFamilyID: family)
        return SealedAuthorizationCode(grant: grant, redirectURIDigest: digest, expiresAt: expiresAt)
    }

    /// The length of the code of a grant with this `scope` and `nonce` at most (every identifier at its longest
    /// usual form, the second factor's id at 32 characters), for refusing requests whose code could not fit.
    public static func longestLength(scope: String, nonce: String?) -> Int {
        let identifier = 17
        let fixed = 1 + identifier * 2 + 32 + (1 + 43) + 8 * 2 + (1 + 8) + (1 + 1 + 32) + (1 + identifier) * 2
        let payload = fixed + 1 + scope.utf8.count + 1 + (nonce.map { 1 + $0.utf8.count } ?? 0)
        let envelope = 2 + 9 + 12 + 16 + payload
        return (envelope * 4 + 2) / 3
    }
}
