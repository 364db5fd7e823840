import TesseraJSON
import Testing

@testable import TesseraOAuth

/// The token payloads are written member by member: each must read back as the claims it was written from, with
/// every optional member present or absent and text that needs escaping.
@Suite struct TokenClaimsTests {
    static let awkward = "quote \" backslash \\ newline \n tab \t nul-free ü 日本 \u{1F}"

    static func decoded<Claims: Decodable>(_ payload: [UInt8], as type: Claims.Type) throws -> Claims {
        try JSONValueDecoder().decode(type, from: try JSONParser().parse(payload))
    }

    @Test(arguments: [false, true])
    func accessTokenClaimsReadBackAsWritten(everyMember: Bool) throws {
        let claims = AccessTokenClaims(
            iss: "https://id.example", sub: Self.awkward, aud: "client", clientID: "client", scope: "openid email",
            iat: 1_700_000_000, exp: -1, jti: "j", authTime: everyMember ? 1_699_999_000 : nil,
            amr: everyMember ? ["pwd", Self.awkward] : nil, tenant: everyMember ? "t-1" : nil,
            sid: everyMember ? "s" : nil)
        #expect(try Self.decoded(claims.payload, as: AccessTokenClaims.self) == claims)
    }

    @Test(arguments: [false, true])
    func idTokenClaimsReadBackAsWritten(everyMember: Bool) throws {
        let claims = OpenIDTokenClaims(
            iss: "https://id.example", sub: "u", aud: "client", iat: 1_700_000_000, exp: 1_700_003_600,
            authTime: 0, nonce: everyMember ? Self.awkward : nil, amr: everyMember ? ["pwd", "otp"] : [],
            atHash: "h", email: everyMember ? "a@example.com" : nil, emailVerified: everyMember ? false : nil,
            name: everyMember ? Self.awkward : nil, phoneNumber: everyMember ? "+15555550100" : nil,
            sid: everyMember ? "s" : nil)
        #expect(try Self.decoded(claims.payload, as: OpenIDTokenClaims.self) == claims)
    }
}
