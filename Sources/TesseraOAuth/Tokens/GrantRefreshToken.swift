import TesseraCore
public import TesseraCrypto

/// The refresh token of an OAuth grant (API §3): `<family id>.<envelope>`, the grant's family id in clear and, in
/// base64url, an envelope sealed with AES-256-GCM under a key derived from the master key
/// (``KeyRing/derived(purpose:)``) that binds 32 random bytes to that family.
///
/// The family's row keeps the digest of its one current token, so a rotation updates that row alone and leaves no
/// other row behind. The envelope is what tells a reuse from a guess: a token that names a family but is not its
/// current one revokes the family only when its envelope opens, that is when Tessera issued it for that family (a
/// stolen token used after its rotation, or a client racing itself). A made-up token naming somebody's family
/// revokes nothing. A token sealed under a master key since removed from the ring still refreshes while it is the
/// current one; only a reuse of it goes unnoticed.
///
/// Tokens issued before this form (core migration 6) are 43 base64url characters without a dot, rows of
/// `refresh_tokens`: each is still valid once, and its family then moves to this form.
public struct GrantRefreshToken: Sendable {
    /// The family the token names; nothing proves it unless ``opens(with:)``.
    public let familyID: String
    /// The envelope, in base64url.
    private let envelope: Substring

    /// The longest family id a token may name (ids of the server's own form have 22 characters).
    public static let maximumFamilyIDLength = 64

    /// A new token for `familyID`, sealed with `keys` (`CoreServices.refreshTokenKeys`), and its digest (what the
    /// family's row keeps).
    public static func make(familyID: String, keys: KeyRing) throws -> (secret: String, digest: [UInt8]) {
        let envelope = try keys.seal(try SecureRandom.bytes(count: 32), associatedData: associatedData(familyID))
        let secret = familyID + "." + Base64URL.encode(envelope)
        return (secret, try SecretDigest.of(secret))
    }

    /// The family `token` names; nil when it is not of this form, one dot between a family id and the rest (a
    /// token of before it, which only a row of `refresh_tokens` can make valid, or an access token, which has two).
    /// Nothing is opened: a token that its family's row holds needs no envelope to be valid, so only a token that
    /// is not the current one is opened, to tell a reuse from a guess.
    public static func parse(_ token: String) -> GrantRefreshToken? {
        // The dots are looked for in the token's bytes in place (through its `utf8` view, about 3 000 instructions
        // a refresh under callgrind).
        var token = token
        let dotOffset = token.withUTF8 { bytes -> Int? in
            guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")),
                !bytes[(dot + 1)...].contains(UInt8(ascii: "."))
            else { return nil }
            return dot
        }
        guard let dotOffset, dotOffset > 0, dotOffset <= maximumFamilyIDLength else { return nil }
        let dot = token.utf8.index(token.utf8.startIndex, offsetBy: dotOffset)
        return GrantRefreshToken(familyID: String(token[..<dot]), envelope: token[token.utf8.index(after: dot)...])
    }

    /// Whether the envelope, spelled as Tessera writes it (no `=` padding), opens with `keys` for ``familyID``:
    /// Tessera issued the token for that family. Another spelling of the family's current token is no reuse of it.
    public func opens(with keys: KeyRing) -> Bool {
        guard let bytes = try? Base64URL.decodeUnpadded(String(envelope)) else { return false }
        return (try? keys.open(bytes, associatedData: Self.associatedData(familyID))) != nil
    }

    /// Bound into every seal: the purpose and the family, so an envelope never opens for another family.
    private static func associatedData(_ familyID: String) -> [UInt8] {
        Array("tessera refresh token\n\(familyID)".utf8)
    }
}
