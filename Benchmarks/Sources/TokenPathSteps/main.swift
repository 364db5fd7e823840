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
        Step(name: "token-form", summary: "one authorization_code token request body parsed") {
            _ = try URLEncodedForm(parsing: tokenRequestBody)
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
