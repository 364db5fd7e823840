// TokenPathSteps: runs one CPU step of the token path N times, so that `valgrind --tool=callgrind` can count its
// instructions (scripts/bench-steps.sh). Instruction counts do not move with the machine's load, unlike the load
// test's rates and CPU times, so they show a change of a few percent in one step that the load test cannot.
//
// usage: TokenPathSteps STEP ITERATIONS, or TokenPathSteps --list (the steps, one a line: name, then what it does)
import FoundationEssentials
import TesseraCrypto
import TesseraHTTP
import TesseraOAuth

#if canImport(Glibc)
import Glibc
#endif

/// A step: set up once, then `run` once per iteration.
struct Step {
    let name: String
    let summary: String
    let run: () throws -> Void
}

/// A token-sized claim set: what an access token of the cycle carries.
let accessTokenPayload = Array(
    #"{"iss":"http://127.0.0.1:8080","sub":"mO3V2cB4Y7lqR8wK1zT5xA","aud":"pVx1BqF9Ln3sW7eR2yU6dA","client_id":"pVx1BqF9Ln3sW7eR2yU6dA","scope":"openid profile email","iat":1795000000,"nbf":1795000000,"exp":1795003600,"jti":"Zb8m4Qk2Hn6Ty1Rc9Wv3Xs","auth_time":1794999000,"sid":"Kd7n2Pq5Jm8Vr4Ls1Gt6Hw","amr":["pwd"]}"#
        .utf8)
let tokenRequestBody = Array(
    "grant_type=authorization_code&code=AVeryLongSealedCodeOfAboutTwoHundredCharactersAbcdefghijklmnopqrstuvwxyz0123456789-_AbcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&client_id=pVx1BqF9Ln3sW7eR2yU6dA"
        .utf8)

/// The authorize request of an SSO cycle as a browser sends it: the query and the session and language cookies.
let authorizeRequest = Array(
    ("GET /oauth2/authorize?response_type=code&client_id=pVx1BqF9Ln3sW7eR2yU6dA&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback"
        + "&scope=openid%20profile%20email&state=af0ifjsldkj&nonce=n-0S6_WzA2Mj"
        + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256 HTTP/1.1\r\n"
        + "Host: 127.0.0.1:8080\r\nUser-Agent: OAuthLoad\r\nAccept: text/html\r\n"
        + "Cookie: tessera_browser=Qm8x3Lr7Tp2Vw9Zs4Nk6Yd1Hc5Jf8Ga0; tessera_session=Xn4Rb7Kq2Wm9Pt5Lz8Hc3Vs6Jd1Gf0Ya7Ue2Mi5Oy; tessera_lang=en\r\n\r\n")
        .utf8)
/// The token request of the cycle: headers and the form above.
let tokenRequest =
    Array(
        ("POST /oauth2/token HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(tokenRequestBody.count)\r\n\r\n").utf8) + tokenRequestBody
/// A token response's body: about what the cycle answers (two tokens and a refresh token).
let tokenResponseBody = Array(
    (#"{"access_token":""# + String(repeating: "a", count: 560) + #"","token_type":"Bearer","expires_in":3600,"#
        + #""refresh_token":"Rf3k9Lm2Xq7Vb4Nz8Tc1Hw6Ps5Jd0Ga3Ue7Mi2Oy4Kq","scope":"openid profile email","id_token":""#
        + String(repeating: "i", count: 640) + #""}"#).utf8)

/// The one request `bytes` hold, parsed by `parser` (kept alive across iterations, as a connection keeps it).
func parse(_ bytes: [UInt8], with parser: HTTPRequestParser) throws -> HTTPRequest {
    for event in parser.feed(bytes) {
        if case .request(let request) = event { return request }
        if case .failure(let failure) = event { throw failure }
    }
    throw StepError.noRequest
}

enum StepError: Error {
    case noRequest
}

func steps() throws -> [Step] {
    let key = try ES256PrivateKey.generate()
    let signer = try JWTSigner(key: key)
    let keys = try KeyRing(current: MasterKey(key: SymmetricKey(bytes: [UInt8](repeating: 7, count: 32))))
    let grant = AuthorizationGrant(
        clientID: "pVx1BqF9Ln3sW7eR2yU6dA", userID: "mO3V2cB4Y7lqR8wK1zT5xA",
        redirectURI: "http://127.0.0.1:9/callback", codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        scope: "openid profile email", nonce: "n-0S6_WzA2Mj", authTime: Date(timeIntervalSince1970: 1_794_999_000),
        provider: "password", secondFactor: nil, secondFactorID: nil, signInFamilyID: "Kd7n2Pq5Jm8Vr4Ls1Gt6Hw")
    let expiry = Date(timeIntervalSince1970: 4_000_000_000)
    let code = try SealedAuthorizationCode.seal(grant, expiresAt: expiry, keys: keys)
    let tokenParser = HTTPRequestParser()
    let authorizeParser = HTTPRequestParser()
    let tokenResponse = HTTPResponse(
        status: .ok,
        headers: ["Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"],
        body: tokenResponseBody)
    let date = HTTPDateCache().current()
    let accessClaims = AccessTokenClaims(
        iss: "http://127.0.0.1:8080", sub: "mO3V2cB4Y7lqR8wK1zT5xA", aud: "pVx1BqF9Ln3sW7eR2yU6dA",
        clientID: "pVx1BqF9Ln3sW7eR2yU6dA", scope: "openid profile email", iat: 1_795_000_000, exp: 1_795_003_600,
        jti: "Zb8m4Qk2Hn6Ty1Rc9Wv3Xs", authTime: 1_794_999_000, amr: ["pwd"], tenant: nil, sid: "Kd7n2Pq5Jm8Vr4Ls1Gt6Hw"
    )
    let idClaims = OpenIDTokenClaims(
        iss: "http://127.0.0.1:8080", sub: "mO3V2cB4Y7lqR8wK1zT5xA", aud: "pVx1BqF9Ln3sW7eR2yU6dA", iat: 1_795_000_000,
        exp: 1_795_003_600, authTime: 1_794_999_000, nonce: "n-0S6_WzA2Mj", amr: ["pwd"],
        atHash: "77QmUPtjPfzWtF2AnpK9RQ", email: "user@example.com", emailVerified: true, sid: "Kd7n2Pq5Jm8Vr4Ls1Gt6Hw")
    return [
        Step(name: "es256", summary: "one ES256 signature of a token's signing input") {
            _ = try key.signature(for: accessTokenPayload)
        },
        Step(name: "jwt", summary: "one access token: header, payload and signature, Base64URL") {
            _ = try signer.sign(payload: accessTokenPayload)
        },
        Step(name: "seal-code", summary: "one sealed authorization code (AES-256-GCM under the code key)") {
            _ = try SealedAuthorizationCode.seal(grant, expiresAt: expiry, keys: keys)
        },
        Step(name: "open-code", summary: "one sealed authorization code opened and read") {
            _ = try SealedAuthorizationCode.open(code, keys: keys)
        },
        Step(name: "refresh-token", summary: "one grant's refresh token (an AES-256-GCM envelope) and its digest") {
            _ = try GrantRefreshToken.make(familyID: "x1ZkQp4pQ0W3yG7bq9cF2A", keys: keys)
        },
        Step(name: "token-form", summary: "one authorization_code token request body parsed") {
            _ = try URLEncodedForm(parsing: tokenRequestBody)
        },
        Step(name: "token-request", summary: "one token request parsed off the wire, its form read") {
            _ = try parse(tokenRequest, with: tokenParser).formItems()
        },
        Step(name: "authorize", summary: "one authorize request parsed off the wire, its query and cookies read") {
            let request = try parse(authorizeRequest, with: authorizeParser)
            _ = try request.queryItems()
            _ = request.cookie(named: "tessera_session")
            _ = request.cookie(named: "tessera_lang")
        },
        Step(name: "response", summary: "one token response (1.3 KB of JSON, no-store) written for the wire") {
            _ = try HTTPResponseEncoder.encode(tokenResponse, context: HTTPResponseContext(), date: date)
        },
        Step(name: "claims", summary: "an access token's and an ID token's claims written as JSON") {
            _ = accessClaims.payload
            _ = idClaims.payload
        },
    ]
}

let arguments = CommandLine.arguments
func fail(_ message: String) -> Never {
    let line = Array("TokenPathSteps: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}
do {
    let all = try steps()
    if arguments.count == 2 && arguments[1] == "--list" {
        for step in all { print("\(step.name)\t\(step.summary)") }
        exit(0)
    }
    guard arguments.count == 3, let step = all.first(where: { $0.name == arguments[1] }),
        let iterations = Int(arguments[2]), iterations >= 0
    else {
        fail(
            "usage: TokenPathSteps STEP ITERATIONS, STEP one of: "
                + all.map { "\($0.name) (\($0.summary))" }.joined(separator: ", "))
    }
    for _ in 0..<iterations { try step.run() }
} catch {
    fail("\(error)")
}
