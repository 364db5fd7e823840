import FoundationEssentials
import TesseraCrypto
import Testing

@Suite("JWT signing and verification")
struct JWTTests {
    struct Claims: Codable, Equatable, Sendable {
        var iss: String
        var sub: String
        var aud: String
        var iat: Int64
        var exp: Int64
        var nbf: Int64?
        // swift-format-ignore: AlwaysUseLowerCamelCase
        var email_verified: Bool
    }

    static let issuedAt: Int64 = 1_800_000_000
    static let claims = Claims(
        iss: "http://127.0.0.1:8080", sub: "user-1", aud: "tessera", iat: issuedAt, exp: issuedAt + 3600,
        nbf: nil, email_verified: true
    )

    let key: ES256PrivateKey
    let signer: JWTSigner
    let verifier: JWTVerifier

    init() throws {
        key = try ES256PrivateKey.generate()
        signer = try JWTSigner(key: key)
        verifier = JWTVerifier(keys: ES256KeySet(thumbprintKeyed: [key.publicKey]), expectedType: .jwt)
    }

    /// A compact JWS from raw header and payload JSON, signed with `key` (or carrying `signature` as is).
    func token(header: String, payload: String, signature: [UInt8]? = nil) throws -> String {
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let signatureBytes = try signature ?? key.signature(for: signingInput)
        return signingInput + "." + Base64URL.encode(signatureBytes)
    }

    var header: String { #"{"alg":"ES256","typ":"JWT","kid":"\#(key.publicKey.thumbprint)"}"# }
    var payload: String { #"{"iss":"i","sub":"s","aud":"a","iat":1800000000,"exp":1800003600,"email_verified":true}"# }

    @Test func roundTrip() throws {
        let token = try signer.sign(Self.claims)
        #expect(token.split(separator: ".").count == 3)
        #expect(!token.contains("="))
        let verified = try verifier.verify(token, as: Claims.self, now: Self.issuedAt + 10)
        #expect(verified.claims == Self.claims)
        #expect(verified.header == JWSHeader(alg: "ES256", typ: "JWT", kid: key.publicKey.thumbprint))
        let headerJSON = try Base64URL.decode(token.split(separator: ".")[0])
        #expect(String(decoding: headerJSON, as: UTF8.self).contains(#""alg":"ES256""#))
        let payloadJSON = String(decoding: try Base64URL.decode(token.split(separator: ".")[1]), as: UTF8.self)
        #expect(payloadJSON.contains(#""iss":"http://127.0.0.1:8080""#))
    }

    @Test func accessTokensCarryTheirOwnType() throws {
        let accessVerifier = JWTVerifier(
            keys: ES256KeySet(thumbprintKeyed: [key.publicKey]), expectedType: .accessToken
        )
        let accessToken = try signer.sign(Self.claims, type: .accessToken)
        #expect(try accessVerifier.verify(accessToken, as: Claims.self, now: Self.issuedAt).header.typ == "at+jwt")
        #expect(throws: JWTError.unexpectedType("at+jwt")) {
            try verifier.verify(accessToken, as: Claims.self, now: Self.issuedAt)
        }
        #expect(throws: JWTError.unexpectedType("JWT")) {
            try accessVerifier.verify(signer.sign(Self.claims), as: Claims.self, now: Self.issuedAt)
        }
        let untyped = try token(header: #"{"alg":"ES256","kid":"\#(key.publicKey.thumbprint)"}"#, payload: payload)
        #expect(throws: JWTError.unexpectedType(nil)) {
            try verifier.verify(untyped, as: Claims.self, now: Self.issuedAt)
        }
        #expect(JWTType.accessToken.matches("application/AT+JWT"))
        #expect(!JWTType.accessToken.matches("JWT"))
    }

    @Test func customKeyIDAndKeyLookupClosure() throws {
        let named = try JWTSigner(key: key, kid: "2026-01")
        let lookup = JWTVerifier(expectedType: .jwt) { [publicKey = key.publicKey] kid in
            kid == "2026-01" ? publicKey : nil
        }
        let verified = try lookup.verify(named.sign(Self.claims), as: Claims.self, now: Self.issuedAt)
        #expect(verified.header.kid == "2026-01")
        #expect(throws: JWTError.self) { try JWTSigner(key: key, kid: "") }
    }

    @Test func algNoneIsRefused() throws {
        let kid = key.publicKey.thumbprint
        let unsigned =
            Base64URL.encode(Array(#"{"alg":"none","typ":"JWT","kid":"\#(kid)"}"#.utf8)) + "."
            + Base64URL.encode(Array(payload.utf8)) + "."
        #expect(throws: JWTError.algorithmNotAllowed("none")) {
            try verifier.verify(unsigned, as: Claims.self, now: Self.issuedAt)
        }
        let withSignature = try token(header: #"{"alg":"none","typ":"JWT","kid":"\#(kid)"}"#, payload: payload)
        #expect(throws: JWTError.algorithmNotAllowed("none")) {
            try verifier.verify(withSignature, as: Claims.self, now: Self.issuedAt)
        }
    }

    @Test func hs256WithThePublicKeyAsSecretIsRefused() throws {
        let kid = key.publicKey.thumbprint
        let header = #"{"alg":"HS256","typ":"JWT","kid":"\#(kid)"}"#
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let jwkJSON = try JSONEncoder().encode(key.publicKey.jwk())
        for secret in [[0x04] + key.publicKey.x + key.publicKey.y, Array(jwkJSON)] {
            let mac = try HMAC.authenticationCode(for: signingInput, key: secret, algorithm: .sha256)
            let forged = signingInput + "." + Base64URL.encode(mac)
            #expect(throws: JWTError.algorithmNotAllowed("HS256")) {
                try verifier.verify(forged, as: Claims.self, now: Self.issuedAt)
            }
            // The same MAC under an ES256 header is simply a wrong signature.
            let relabelled = try token(header: self.header, payload: payload, signature: mac)
            #expect(throws: JWTError.invalidSignature) {
                try verifier.verify(relabelled, as: Claims.self, now: Self.issuedAt)
            }
        }
    }

    @Test(arguments: [
        (#"{"alg":"RS256","typ":"JWT","kid":"k"}"#, JWTError.algorithmNotAllowed("RS256")),
        (#"{"alg":"es256","typ":"JWT","kid":"k"}"#, .algorithmNotAllowed("es256")),
        (#"{"alg":"ES384","typ":"JWT","kid":"k"}"#, .algorithmNotAllowed("ES384")),
        (#"{"typ":"JWT","kid":"k"}"#, .algorithmNotAllowed(nil)),
        (#"{"alg":"ES256","typ":"JWT"}"#, .missingKeyID),
        (#"{"alg":"ES256","typ":"JWT","kid":""}"#, .missingKeyID),
        (#"{"alg":"ES256","typ":"JWT","kid":"someone-else"}"#, .unknownKeyID("someone-else")),
        (#"{"alg":"ES256","typ":"JWT","kid":"k","crit":["exp"]}"#, .unsupportedCriticalHeader(["exp"])),
        (#"["alg","ES256"]"#, .notAJSONObject(.header)),
        (#""ES256""#, .notAJSONObject(.header)),
        ("not json", .notAJSONObject(.header)),
        (#"{"alg":"ES256","#, .invalidHeader("not valid JSON")),
        (#"{"alg":256,"typ":"JWT","kid":"k"}"#, .invalidHeader("wrong type or value for alg")),
    ])
    func badHeadersAreRefused(header: String, error: JWTError) throws {
        let candidate = try token(header: header, payload: payload)
        #expect(throws: error) { try verifier.verify(candidate, as: Claims.self, now: Self.issuedAt) }
    }

    @Test func tamperedTokensAreRefused() throws {
        let token = try signer.sign(Self.claims)
        let parts = token.split(separator: ".").map(String.init)
        var changedClaims = Self.claims
        changedClaims.sub = "admin"
        let otherPayload = Base64URL.encode(Array(try JSONEncoder().encode(changedClaims)))
        #expect(throws: JWTError.invalidSignature) {
            try verifier.verify(parts[0] + "." + otherPayload + "." + parts[2], as: Claims.self, now: Self.issuedAt)
        }
        var signature = try Base64URL.decode(parts[2])
        signature[10] ^= 0x01
        let badSignature = parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
        #expect(throws: JWTError.invalidSignature) {
            try verifier.verify(badSignature, as: Claims.self, now: Self.issuedAt)
        }
        let otherKey = try ES256PrivateKey.generate()
        let impostor = try JWTSigner(key: otherKey, kid: key.publicKey.thumbprint).sign(Self.claims)
        #expect(throws: JWTError.invalidSignature) {
            try verifier.verify(impostor, as: Claims.self, now: Self.issuedAt)
        }
    }

    @Test func signatureIsCheckedBeforeClaimsAreDecoded() throws {
        let wrongShape = #"{"sub":5}"#
        let unsigned = try token(header: header, payload: wrongShape, signature: Array(repeating: 1, count: 64))
        #expect(throws: JWTError.invalidSignature) {
            try verifier.verify(unsigned, as: Claims.self, now: Self.issuedAt)
        }
        let signed = try token(header: header, payload: #"{"sub":5,"exp":1800003600}"#)
        let error = #expect(throws: JWTError.self) { try verifier.verify(signed, as: Claims.self, now: Self.issuedAt) }
        guard case .invalidClaims = error else {
            Issue.record("expected invalidClaims, got \(String(describing: error))")
            return
        }
    }

    @Test func malformedTokensAreRefused() throws {
        let good = try signer.sign(Self.claims)
        let parts = good.split(separator: ".").map(String.init)
        #expect(throws: JWTError.wrongSegmentCount(1)) { try verifier.verify("", as: Claims.self, now: 0) }
        #expect(throws: JWTError.wrongSegmentCount(2)) {
            try verifier.verify(parts[0] + "." + parts[1], as: Claims.self, now: 0)
        }
        #expect(throws: JWTError.wrongSegmentCount(4)) { try verifier.verify(good + ".", as: Claims.self, now: 0) }
        #expect(throws: JWTError.wrongSegmentCount(5)) {
            try verifier.verify(good + "." + parts[2] + "." + parts[2], as: Claims.self, now: 0)
        }
        #expect(throws: JWTError.emptySegment(.header)) {
            try verifier.verify("." + parts[1] + "." + parts[2], as: Claims.self, now: 0)
        }
        #expect(throws: JWTError.emptySegment(.payload)) {
            try verifier.verify(parts[0] + ".." + parts[2], as: Claims.self, now: 0)
        }
        #expect(throws: JWTError.emptySegment(.signature)) {
            try verifier.verify(parts[0] + "." + parts[1] + ".", as: Claims.self, now: 0)
        }
        #expect(throws: JWTError.invalidBase64URL(.header)) {
            try verifier.verify("e*J." + parts[1] + "." + parts[2], as: Claims.self, now: 0)
        }
        #expect(throws: JWTError.invalidBase64URL(.payload)) {
            try verifier.verify(parts[0] + "." + parts[1] + "=x." + parts[2], as: Claims.self, now: 0)
        }
        #expect(throws: JWTError.invalidBase64URL(.signature)) {
            try verifier.verify(parts[0] + "." + parts[1] + ".a+b/", as: Claims.self, now: 0)
        }
        #expect(throws: JWTError.tokenTooLong(9000)) {
            try verifier.verify(String(repeating: "a", count: 9000), as: Claims.self, now: 0)
        }
        let arrayPayload = try token(header: header, payload: "[1,2,3]")
        #expect(throws: JWTError.notAJSONObject(.payload)) {
            try verifier.verify(arrayPayload, as: Claims.self, now: Self.issuedAt)
        }
        let shortSignature = try token(header: header, payload: payload, signature: Array(repeating: 7, count: 32))
        #expect(throws: JWTError.invalidSignature) { try verifier.verify(shortSignature, as: Claims.self, now: 0) }
    }

    @Test func timeClaimsAreCheckedAgainstTheGivenTime() throws {
        let token = try signer.sign(Self.claims)
        let exp = Self.claims.exp
        let leeway = verifier.timeValidator.leeway
        #expect(throws: Never.self) { try verifier.verify(token, as: Claims.self, now: exp + leeway - 1) }
        #expect(throws: JWTError.expired(expiresAt: exp, now: exp + leeway)) {
            try verifier.verify(token, as: Claims.self, now: exp + leeway)
        }
        #expect(throws: JWTError.issuedInFuture(issuedAt: Self.issuedAt, now: Self.issuedAt - leeway - 1)) {
            try verifier.verify(token, as: Claims.self, now: Self.issuedAt - leeway - 1)
        }
        var later = Self.claims
        later.nbf = Self.issuedAt + 600
        let notYet = try signer.sign(later)
        #expect(throws: JWTError.notYetValid(notBefore: Self.issuedAt + 600, now: Self.issuedAt)) {
            try verifier.verify(notYet, as: Claims.self, now: Self.issuedAt)
        }
        #expect(throws: Never.self) { try verifier.verify(notYet, as: Claims.self, now: Self.issuedAt + 600 - leeway) }

        let noExpiry = try self.token(header: header, payload: #"{"sub":"s","iat":1800000000}"#)
        struct Subject: Decodable { let sub: String }
        #expect(throws: JWTError.missingExpiration) {
            try verifier.verify(noExpiry, as: Subject.self, now: Self.issuedAt)
        }
        let textExpiry = try self.token(header: header, payload: #"{"sub":"s","exp":"tomorrow"}"#)
        #expect(throws: JWTError.invalidClaims("exp, nbf and iat must be integer NumericDates")) {
            try verifier.verify(textExpiry, as: Subject.self, now: Self.issuedAt)
        }
    }

    @Test func timeValidatorEdges() throws {
        let strict = JWTTimeValidator(leeway: 0)
        #expect(throws: JWTError.expired(expiresAt: 100, now: 100)) {
            try strict.check(expiresAt: 100, notBefore: nil, issuedAt: nil, now: 100)
        }
        try strict.check(expiresAt: 101, notBefore: 100, issuedAt: 100, now: 100)
        try strict.check(expiresAt: Int64.max, notBefore: nil, issuedAt: nil, now: 100)
        try JWTTimeValidator(leeway: 5, requiresExpiration: false).check(
            expiresAt: nil, notBefore: 104, issuedAt: nil, now: 100
        )
        #expect(JWTTimeValidator(leeway: -5).leeway == 0)
    }

    @Test func claimsMustEncodeToAnObject() throws {
        #expect(throws: JWTError.encodingFailed("claims are not a JSON object")) { try signer.sign([1, 2, 3]) }
    }
}
