import CFuzzDriver
import Dispatch
import FoundationEssentials
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraRPC

#if canImport(Glibc)
import Glibc
#endif

/// libFuzzer targets over the parsers an attacker reaches first. One binary holds them all; the environment variable
/// `TESSERA_FUZZ_TARGET` names the one a run exercises (`make fuzz` runs each in turn). Every target must never crash,
/// and the ones with a round trip check it: what parses, serialized again, parses to the same value.
///
/// With `TESSERA_FUZZ_SEEDS=DIR` the binary writes valid inputs for the sealed-code, refresh-token and JWT targets
/// (made with the fixed keys below) into `DIR` and exits: the committed seeds of `Corpus/` were made that way.
enum FuzzTarget: String, CaseIterable {
    case httpRequest = "http_request"
    case json
    case jsonRPC = "json_rpc"
    case form
    case cookies
    case redirectURI = "redirect_uri"
    case sealedCode = "sealed_code"
    case refreshToken = "refresh_token"
    case jwt

    /// Runs one input.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .httpRequest: Self.httpRequest(bytes)
        case .json: Self.json(bytes)
        case .jsonRPC: Self.jsonRPC(bytes)
        case .form: Self.form(bytes)
        case .cookies: _ = HTTPCookies.parse(String(decoding: bytes, as: UTF8.self))
        case .redirectURI: Self.redirectURI(bytes)
        case .sealedCode:
            _ = try? SealedAuthorizationCode.open(String(decoding: bytes, as: UTF8.self), keys: Fixtures.codeKeys)
        case .refreshToken: Self.refreshToken(bytes)
        case .jwt: Self.jwt(bytes)
        }
    }

    /// The request parser, fed the input whole and again in two pieces split where the first byte says: both
    /// feedings must tell the same story.
    private static func httpRequest(_ bytes: [UInt8]) {
        let whole = HTTPRequestParser().feed(bytes)
        guard let first = bytes.first, bytes.count > 1 else { return }
        let split = Int(first) % bytes.count
        let parser = HTTPRequestParser()
        let pieces = parser.feed(Array(bytes[..<split])) + parser.feed(Array(bytes[split...]))
        check(pieces.count == whole.count, "split feeding gave \(pieces.count) events, whole \(whole.count)")
    }

    /// The JSON parser; a value it accepts must serialize and parse back to itself, and decode as a map.
    private static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONParser().parse(bytes) else { return }
        let again = try? JSONParser().parse(value.serialized())
        check(again == value, "a parsed value did not survive serialization")
        _ = try? JSONValueDecoder().decode([String: JSONValue].self, from: value)
    }

    /// The JSON-RPC envelope, batch and params handling of the dispatcher, over two toy methods.
    private static func jsonRPC(_ bytes: [UInt8]) {
        let done = DispatchSemaphore(value: 0)
        Task {
            _ = await Fixtures.dispatcher.handle(body: bytes, context: RPCContext(requestID: "fuzz"))
            done.signal()
        }
        done.wait()
    }

    /// URL-encoded forms; a form that parses must encode and parse back to the same fields.
    private static func form(_ bytes: [UInt8]) {
        guard let form = try? URLEncodedForm(parsing: bytes) else { return }
        let again = try? URLEncodedForm(parsing: form.encoded)
        check(
            again.map { $0.fields.elementsEqual(form.fields) { $0.name == $1.name && $0.value == $1.value } } == true,
            "a parsed form did not survive encoding")
    }

    /// Redirect-URI validation and matching: a registered URI and a requested one, split at the first newline.
    private static func redirectURI(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let registered = parts[0]
        let requested = parts.count > 1 ? parts[1] : parts[0]
        let valid = (try? RedirectURI.validate(registered)) != nil
        let matches = RedirectURI.matches(registered: registered, requested: requested)
        if valid {
            check(RedirectURI.matches(registered: registered, requested: registered), "a URI must match itself")
        }
        if matches, !requested.utf8.elementsEqual(registered.utf8) {
            // The scheme is case-insensitive (RFC 3986 §3.1), so `Http://127.0.0.1:5000/cb` is a loopback URI too.
            let lowered = String(requested.prefix(20)).lowercased()
            check(
                lowered.hasPrefix("http://127.0.0.1:") || lowered.hasPrefix("http://[::1]:"),
                "only loopback ports may differ")
        }
    }

    /// A grant's refresh token read and its envelope opened, with the fixed key of the seeds: what names a family
    /// names a non-empty id of at most the longest length, without a dot.
    private static func refreshToken(_ bytes: [UInt8]) {
        guard let token = GrantRefreshToken.parse(String(decoding: bytes, as: UTF8.self)) else { return }
        let id = token.familyID
        check(
            !id.isEmpty && id.utf8.count <= GrantRefreshToken.maximumFamilyIDLength && !id.contains("."),
            "a token named the family '\(id)'")
        _ = token.opens(with: Fixtures.refreshTokenKeys)
    }

    /// The JWT verifier, with the fixed key of the seeds.
    private static func jwt(_ bytes: [UInt8]) {
        let verifier = JWTVerifier(keys: Fixtures.jwtKeys, expectedType: nil)
        _ = try? verifier.verify(
            String(decoding: bytes, as: UTF8.self), as: [String: JSONValue].self, now: Fixtures.now)
    }

    private static func check(_ condition: Bool, _ message: String) {
        guard !condition else { return }
        printError("fuzz property failed: \(message)")
        abort()
    }
}

/// The fixed keys and toy methods the targets run with.
enum Fixtures {
    /// The time the JWT seeds are valid at.
    static let now: Int64 = 1_800_000_000

    static let codeKeys: KeyRing = {
        // A fixed key: the seeds must open under it run after run.
        try! KeyRing(current: MasterKey(key: SymmetricKey(bytes: Array(repeating: 0x5A, count: 32))))
    }()

    /// The refresh tokens' keys, derived from the same fixed key as the server derives them.
    static let refreshTokenKeys: KeyRing = try! codeKeys.derived(purpose: "refresh token")

    static let signer: JWTSigner = {
        let pem = """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/UDAk0euMVTH6+er
            kmMygxr67iN5gybfc6aevS7/76WhRANCAATe8FOnIQLUeiTaX5rAo2FoRjsP0WOf
            lyLrLdeNmpBNotWaF61pAFbMB+Afy4r7OBia09vCM5kQbR9/gU4Qy3jn
            -----END PRIVATE KEY-----
            """
        return try! JWTSigner(key: ES256PrivateKey.fromPEM(pem), kid: "fuzz")
    }()

    static let jwtKeys = ES256KeySet(["fuzz": signer.key.publicKey])

    struct EchoParams: Codable, Sendable {
        var text: String
        var times: Int?
        var nested: [String: [Int]]?
    }

    static let dispatcher: RPCDispatcher = {
        var table = RPCMethodTable(title: "Fuzz", version: "1.0.0")
        table.register("fuzz.echo", summary: "Echoes.", params: EchoParams.self, result: EchoParams.self) { params, _ in
            params
        }
        table.register(
            "fuzz.hash", summary: "Pretends to hash.", params: RPCNoParams.self, result: [String: Bool].self,
            hashesPassword: true
        ) { _, _ in ["ok": true] }
        return RPCDispatcher(methods: table)
    }()

    /// Writes a valid sealed code, refresh token and JWT into `directory`, as seeds.
    static func writeSeeds(to directory: String) throws {
        let grant = AuthorizationGrant(
            clientID: "client-1", userID: "user-1", redirectURI: "com.example.app:/cb",
            codeChallenge: String(repeating: "A", count: 43), scope: "openid email", nonce: "n-1",
            authTime: Date(timeIntervalSince1970: 1_799_999_000), provider: "password", secondFactor: "totp",
            secondFactorID: "enrollment-1", signInFamilyID: "family-1")
        let code = try SealedAuthorizationCode.seal(
            grant, expiresAt: Date(timeIntervalSince1970: 1_800_000_060), keys: codeKeys)
        try write(Array(code.utf8), to: "\(directory)/sealed_code-seed")
        let refreshToken = try GrantRefreshToken.make(familyID: "x1ZkQp4pQ0W3yG7bq9cF2A", keys: refreshTokenKeys)
        try write(Array(refreshToken.secret.utf8), to: "\(directory)/refresh_token-seed")
        let claims: [String: JSONValue] = [
            "iss": "https://tessera.example", "sub": "user-1", "aud": "client-1",
            "iat": .integer(now - 10), "exp": .integer(now + 600), "nonce": "n-1",
        ]
        let token = try signer.sign(claims)
        try write(Array(token.utf8), to: "\(directory)/jwt-seed")
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else { throw SeedError(path: path) }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw SeedError(path: path) }
    }

    struct SeedError: Error {
        let path: String
    }
}

nonisolated(unsafe) private var selected: FuzzTarget?

/// Writes `message` and a newline to standard error.
private func printError(_ message: String) {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// The program: picks the target (or writes the seeds), then hands control to libFuzzer's driver with the usual
/// libFuzzer arguments.
@main
enum FuzzMain {
    static func main() {
        if let seeds = getenv("TESSERA_FUZZ_SEEDS").map({ String(cString: $0) }) {
            do {
                try Fixtures.writeSeeds(to: seeds)
                exit(0)
            } catch {
                printError("cannot write the seeds: \(error)")
                exit(2)
            }
        }
        let name = getenv("TESSERA_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            printError("set TESSERA_FUZZ_TARGET to one of: \(names)")
            exit(2)
        }
        selected = target
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
    }
}

/// One input, as libFuzzer calls it.
private func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target = selected else { return 0 }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    target.run(bytes)
    return 0
}
