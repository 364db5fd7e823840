import FoundationEssentials

/// Verifies compact JWS tokens signed with ES256 and decodes their claims.
///
/// The algorithm allow-list is `ES256` alone: `none`, `HS256` (the algorithm-confusion attack, where the public
/// key is used as an HMAC secret), `RS256` and a missing `alg` are refused before any key is looked up. The key
/// comes only from the verifier's own lookup by `kid`, never from the token (`jwk`, `jku`, `x5u` are ignored).
/// The signature is checked before the payload is decoded, then `exp`, `nbf` and `iat` are checked against the
/// caller's `now`, and only then are the claims decoded into `Claims`. Issuer, audience and the rest of the
/// claims are the caller's to check.
public struct JWTVerifier: Sendable {
    /// Finds the public key for a header's `kid`, or nil when none is known.
    public typealias KeyLookup = @Sendable (String) -> ES256PublicKey?

    /// The `typ` every token must carry, or nil to accept any (or none).
    public let expectedType: JWTType?
    /// The check of `exp`, `nbf` and `iat`.
    public let timeValidator: JWTTimeValidator
    /// Longer tokens are refused before any parsing.
    public let maximumTokenLength: Int
    private let keyLookup: KeyLookup

    /// A verifier that finds keys with `keyLookup`.
    public init(
        expectedType: JWTType?,
        timeValidator: JWTTimeValidator = JWTTimeValidator(),
        maximumTokenLength: Int = 8192,
        keyLookup: @escaping KeyLookup
    ) {
        self.expectedType = expectedType
        self.timeValidator = timeValidator
        self.maximumTokenLength = maximumTokenLength
        self.keyLookup = keyLookup
    }

    /// A verifier that finds keys in `keys`.
    public init(
        keys: ES256KeySet,
        expectedType: JWTType?,
        timeValidator: JWTTimeValidator = JWTTimeValidator(),
        maximumTokenLength: Int = 8192
    ) {
        self.init(
            expectedType: expectedType, timeValidator: timeValidator, maximumTokenLength: maximumTokenLength,
            keyLookup: { keys.publicKey(for: $0) }
        )
    }

    /// The header and claims of `token` when it is a well-formed ES256 JWS signed by a known key, of the expected
    /// type, and valid at `now` (seconds since 1970); otherwise the first problem found, as a ``JWTError``.
    public func verify<Claims: Decodable>(
        _ token: String,
        as claimsType: Claims.Type,
        now: Int64
    ) throws(JWTError) -> VerifiedJWT<Claims> {
        let bytes = Array(token.utf8)
        guard bytes.count <= maximumTokenLength else { throw .tokenTooLong(bytes.count) }
        let segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else { throw .wrongSegmentCount(segments.count) }
        let header = try decodeHeader(segments[0])
        let payload = try Self.decodeSegment(segments[1], as: .payload)
        let signature = try Self.decodeSegment(segments[2], as: .signature)

        guard let kid = header.kid, !kid.isEmpty else { throw .missingKeyID }
        guard let key = keyLookup(kid) else { throw .unknownKeyID(kid) }
        let signingInput = Array(bytes[segments[0].startIndex..<segments[1].endIndex])
        guard key.isValidSignature(signature, for: signingInput) else { throw .invalidSignature }

        guard Self.isJSONObject(payload) else { throw .notAJSONObject(.payload) }
        let decoder = JSONDecoder()
        let times: TimeClaims
        do { times = try decoder.decode(TimeClaims.self, from: Data(payload)) } catch {
            throw .invalidClaims("exp, nbf and iat must be integer NumericDates")
        }
        try timeValidator.check(expiresAt: times.exp, notBefore: times.nbf, issuedAt: times.iat, now: now)
        do {
            return VerifiedJWT(header: header, claims: try decoder.decode(Claims.self, from: Data(payload)))
        } catch {
            throw .invalidClaims(Self.describe(error))
        }
    }

    /// Decodes and checks the header: a JSON object, `alg` exactly `ES256`, no `crit`, the expected `typ`.
    private func decodeHeader(_ segment: ArraySlice<UInt8>) throws(JWTError) -> JWSHeader {
        let json = try Self.decodeSegment(segment, as: .header)
        guard Self.isJSONObject(json) else { throw .notAJSONObject(.header) }
        let header: JWSHeader
        do { header = try JSONDecoder().decode(JWSHeader.self, from: Data(json)) } catch {
            throw .invalidHeader(Self.describe(error))
        }
        guard header.alg == "ES256" else { throw .algorithmNotAllowed(header.alg) }
        if let crit = header.crit { throw .unsupportedCriticalHeader(crit) }
        if let expectedType {
            guard let typ = header.typ, expectedType.matches(typ) else { throw .unexpectedType(header.typ) }
        }
        return header
    }

    private static func decodeSegment(_ segment: ArraySlice<UInt8>, as kind: JWTSegment) throws(JWTError) -> [UInt8] {
        guard !segment.isEmpty else { throw .emptySegment(kind) }
        do { return try Base64Codec.url.decode(utf8: Array(segment)) } catch { throw .invalidBase64URL(kind) }
    }

    /// Whether `json` starts, after optional whitespace, with `{`; the JSON decoder then checks the rest.
    private static func isJSONObject(_ json: [UInt8]) -> Bool {
        let whitespace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        return json.first { !whitespace.contains($0) } == UInt8(ascii: "{")
    }

    /// A short reason for a decoding failure that names the offending field.
    private static func describe(_ error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return "not valid JSON" }
        switch decodingError {
        case .keyNotFound(let key, _): return "missing \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not valid JSON" : "wrong type or value for \(path)"
        @unknown default: return "not valid JSON"
        }
    }
}

/// The registered time claims, decoded separately so they are checked whatever type the caller decodes into.
private struct TimeClaims: Decodable {
    var exp: Int64?
    var nbf: Int64?
    var iat: Int64?
}
