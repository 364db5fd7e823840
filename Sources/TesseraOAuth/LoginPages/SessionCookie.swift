import FoundationEssentials
import TesseraCore
import TesseraCrypto

/// The value of the session cookie (SSO, docs/login-pages.md): the session's secret together with the sign-in it
/// rests on and its expiry, packed with ``ByteWriter``, sealed with AES-256-GCM under a key derived from the master
/// key for this one purpose (``CoreServices/sessionKeys``), and written in base64url.
///
/// An SSO authorization reads the sign-in from the cookie instead of the database: nobody but the server can make or
/// alter one (the tag covers every byte), and what the cookie cannot know, whether the session was ended since, the
/// server's ``SSORevocations`` answer. The session's row (`oauth_browser_sessions`, keyed by the SHA-256 of the
/// secret) stays the record that sign-out and the step-up end.
///
/// Cookies set before sessions were sealed hold the bare secret; they do not open, and the authorization reads
/// their row as before.
struct SessionCookie: Sendable, Equatable {
    /// The format this cookie writes and reads.
    static let version: UInt8 = 1
    /// Bound into every seal, so an envelope made for another purpose never opens as a session.
    static let associatedData = Array("tessera browser session".utf8)

    /// The random secret whose SHA-256 keys the session's row.
    var secret: String
    /// The sign-in the session rests on.
    var family: SignInFamily
    /// Whether that sign-in still owes an enrolment of a second factor (it then signs nobody in by SSO).
    var enrollmentRequired: Bool
    /// When the session ends (``BrowserSessions/lifetime`` after it began, or the session it upgraded).
    var expiresAt: Date

    /// The cookie's value, sealed with `keys`.
    func sealed(keys: KeyRing) throws -> String {
        var writer = ByteWriter()
        writer.byte(Self.version)
        writer.string(secret)
        writer.identifier(family.familyID)
        writer.identifier(family.userID)
        writer.optionalIdentifier(family.tenantID)
        writer.milliseconds(family.authTime)
        writer.string(family.provider)
        writer.optional(family.secondFactor)
        writer.optionalIdentifier(family.secondFactorID)
        writer.byte(enrollmentRequired ? 1 : 0)
        writer.milliseconds(expiresAt)
        return Base64URL.encode(try keys.seal(writer.output, associatedData: Self.associatedData))
    }

    /// The cookie `text` opened with `keys`; nil for anything that is not a whole, untouched cookie sealed with a key
    /// of `keys` (a cookie of the bare secret among them). Expiry is the caller's check.
    static func open(_ text: String, keys: KeyRing) -> SessionCookie? {
        guard text.utf8.count <= 1024, let envelope = try? Base64URL.decode(text),
            let plain = try? keys.open(envelope, associatedData: associatedData)
        else { return nil }
        var reader = ByteReader(plain)
        guard reader.byte() == version, let secret = reader.string(), let familyID = reader.identifier(),
            let userID = reader.identifier(), let tenantID = reader.optionalIdentifier(),
            let authTime = reader.milliseconds(), let provider = reader.string(),
            let secondFactor = reader.optional(), let secondFactorID = reader.optionalIdentifier(),
            let enrollment = reader.byte(), enrollment <= 1, let expiresAt = reader.milliseconds(), reader.isAtEnd
        else { return nil }
        let family = SignInFamily(
            familyID: familyID, userID: userID, tenantID: tenantID, authTime: authTime, provider: provider,
            secondFactor: secondFactor, secondFactorID: secondFactorID)
        return SessionCookie(secret: secret, family: family, enrollmentRequired: enrollment == 1, expiresAt: expiresAt)
    }

    /// The SHA-256 that keys the session's row.
    func hash() throws -> [UInt8] { try SecretDigest.of(secret) }

    /// The SHA-256 that keys the row of the session whose cookie is `text`: of its sealed secret, or of the text
    /// itself for a cookie of the bare secret.
    static func hash(ofCookie text: String, keys: KeyRing) throws -> [UInt8] {
        try open(text, keys: keys)?.hash() ?? SecretDigest.of(text)
    }
}
