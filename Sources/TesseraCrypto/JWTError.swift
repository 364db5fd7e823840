/// Why a JWT could not be signed, or why a token was refused. Verification refuses with the first problem it
/// finds, in the order: shape, header, algorithm, type, key, signature, claims, time.
public enum JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The token is longer than the verifier accepts.
    case tokenTooLong(Int)
    /// The token does not have exactly three dot-separated segments.
    case wrongSegmentCount(Int)
    /// A segment is empty.
    case emptySegment(JWTSegment)
    /// A segment is not base64url (RFC 4648 §5, no padding needed).
    case invalidBase64URL(JWTSegment)
    /// The header or the payload is not a JSON object.
    case notAJSONObject(JWTSegment)
    /// The header has a member of the wrong type (e.g. `"alg": 5`).
    case invalidHeader(String)
    /// `alg` is missing (nil) or is not `ES256` (`none`, `HS256`, `RS256`, …). Only ES256 is ever accepted.
    case algorithmNotAllowed(String?)
    /// `typ` is missing (nil) or not the type the verifier expects.
    case unexpectedType(String?)
    /// The header names critical extensions, which Tessera does not understand.
    case unsupportedCriticalHeader([String])
    /// The header has no `kid`.
    case missingKeyID
    /// No key is known under the header's `kid`.
    case unknownKeyID(String)
    /// The signature does not verify with the key the header names.
    case invalidSignature
    /// The payload verified but does not decode into the expected claims.
    case invalidClaims(String)
    /// `exp` is missing and the verifier requires it.
    case missingExpiration
    /// The token expired at `expiresAt`; `now` is the time of the check (seconds since 1970).
    case expired(expiresAt: Int64, now: Int64)
    /// The token is not valid before `notBefore`.
    case notYetValid(notBefore: Int64, now: Int64)
    /// The token claims to be issued after `now`.
    case issuedInFuture(issuedAt: Int64, now: Int64)
    /// The claims or the header could not be encoded, or do not encode to a JSON object.
    case encodingFailed(String)
    /// OpenSSL failed while signing.
    case crypto(CryptoError)

    /// One line saying what is wrong; never includes the token.
    public var description: String {
        switch self {
        case .tokenTooLong(let length): "token of \(length) bytes is too long"
        case .wrongSegmentCount(let count): "token has \(count) segments, expected 3"
        case .emptySegment(let segment): "token \(segment.rawValue) is empty"
        case .invalidBase64URL(let segment): "token \(segment.rawValue) is not base64url"
        case .notAJSONObject(let segment): "token \(segment.rawValue) is not a JSON object"
        case .invalidHeader(let reason): "invalid token header: \(reason)"
        case .algorithmNotAllowed(let alg): "algorithm \(alg ?? "(missing)") is not allowed"
        case .unexpectedType(let typ): "unexpected token type \(typ ?? "(missing)")"
        case .unsupportedCriticalHeader(let names): "unsupported critical header \(names.joined(separator: ","))"
        case .missingKeyID: "token header has no kid"
        case .unknownKeyID(let kid): "unknown kid \(kid)"
        case .invalidSignature: "invalid signature"
        case .invalidClaims(let reason): "invalid claims: \(reason)"
        case .missingExpiration: "token has no exp"
        case .expired(let expiresAt, let now): "token expired at \(expiresAt) (now \(now))"
        case .notYetValid(let notBefore, let now): "token not valid before \(notBefore) (now \(now))"
        case .issuedInFuture(let issuedAt, let now): "token issued in the future at \(issuedAt) (now \(now))"
        case .encodingFailed(let reason): "cannot encode token: \(reason)"
        case .crypto(let error): error.description
        }
    }
}
