import TesseraCrypto
import TesseraLoop

/// One simulated user with one keep-alive connection: signs in once through the login pages, then runs operations
/// back to back. Used by one task at a time, on its connection's loop (hence the unchecked `Sendable`).
final class VirtualUser: @unchecked Sendable {
    /// The latencies of one run: whole operations and each kind of request.
    struct Latencies: Sendable {
        var operation = LatencyHistogram()
        var authorize = LatencyHistogram()
        var token = LatencyHistogram()
    }

    let index: Int
    let target: BenchTarget
    private(set) var connection: HTTPConnection
    private let writer: HTTPRequestWriter
    private var cookies = CookieJar()
    private var random = FastRandom()
    /// The refresh token the refresh scenario rotates.
    private var refreshToken: String?
    private let basicAuthorization: String
    private let timeout: Duration
    /// How many requests this user has sent.
    private(set) var requests = 0

    /// A user whose first connection allows `setupTimeout` per request (signing in hashes a password, which
    /// queues behind the others' when many sign in at once); connections after ``reconnect()`` allow `timeout`.
    init(index: Int, target: BenchTarget, loop: EventLoop, timeout: Duration, setupTimeout: Duration) {
        self.index = index
        self.target = target
        self.timeout = timeout
        connection = HTTPConnection(loop: loop, host: target.host, port: target.port, timeout: setupTimeout)
        writer = HTTPRequestWriter(host: "\(target.host):\(target.port)")
        let credentials =
            FormEncoding.escape(target.confidentialClientID) + ":" + FormEncoding.escape(target.clientSecret)
        basicAuthorization = "Authorization: Basic " + Base64.encode(Array(credentials.utf8))
    }

    /// The loop this user runs on.
    var loop: EventLoop { connection.loop }

    /// Closes the connection and opens a fresh one on the next request (between measurements).
    func reconnect() {
        connection.close()
        connection = HTTPConnection(loop: connection.loop, host: target.host, port: target.port, timeout: timeout)
    }

    // MARK: - Sign-in through the login pages

    /// Signs in through GET /oauth2/authorize and the login form, following redirects until the redirect URI
    /// receives a code; the session cookie stays in the jar. Returns the code's PKCE verifier and the code.
    @discardableResult
    func signIn() async throws -> (verifier: String, code: String) {
        let (verifier, challenge) = try makePKCE()
        let state = makeState()
        var target = authorizeTarget(challenge: challenge, state: state)
        var response = try await exchange(writer.get(target, fields: cookieFields()))
        for _ in 0..<12 {
            switch response.status {
            case 301, 302, 303, 307, 308:
                guard let location = response.location else {
                    throw LoadError.unexpected(status: response.status, detail: "a redirect without Location")
                }
                if location.hasPrefix(self.target.redirectURI) {
                    return (verifier, try code(from: location, state: state))
                }
                target = resolve(location, against: target)
                response = try await exchange(writer.get(target, fields: cookieFields()))
            case 200:
                let forms = HTMLForm.forms(in: response.text)
                guard let form = forms.first(where: { $0.has("password") }) else {
                    throw LoadError.unexpected(
                        status: 200, detail: "a page without a password form at \(target): \(snippet(response))")
                }
                var pairs: [(String, String)] = []
                for input in form.inputs where input.type != "submit" {
                    switch input.name {
                    case "email": pairs.append(("email", self.target.email(index)))
                    case "password": pairs.append(("password", self.target.password))
                    default: pairs.append((input.name, input.value))
                    }
                }
                if !form.has("email") { pairs.append(("email", self.target.email(index))) }
                target = form.action.isEmpty ? target : resolve(form.action, against: target)
                let body = FormEncoding.encode(pairs)
                response = try await exchange(
                    writer.post(
                        target, contentType: "application/x-www-form-urlencoded", body: body, fields: cookieFields()))
            default:
                throw LoadError.unexpected(status: response.status, detail: "at \(target): \(snippet(response))")
            }
        }
        throw LoadError.setup("no code after 12 steps of the login flow")
    }

    // MARK: - Scenarios

    /// The native-app cycle: authorize with the session cookie (fresh state and PKCE) → code → token.
    func cycle(into latencies: inout Latencies) async throws {
        let begin = ContinuousClock.now
        let (verifier, challenge) = try makePKCE()
        let state = makeState()
        let authorize = try await exchange(
            writer.get(authorizeTarget(challenge: challenge, state: state), fields: cookieFields()))
        let authorized = ContinuousClock.now
        latencies.authorize.record(Self.micros(authorized - begin))
        guard authorize.status == 302, let location = authorize.location, location.hasPrefix(target.redirectURI)
        else {
            throw LoadError.unexpected(status: authorize.status, detail: "authorize: \(snippet(authorize))")
        }
        let token = try await redeem(code(from: location, state: state), verifier: verifier)
        let end = ContinuousClock.now
        latencies.token.record(Self.micros(end - authorized))
        latencies.operation.record(Self.micros(end - begin))
        refreshToken = Self.jsonString("refresh_token", in: token.body)
    }

    /// Gets the first refresh token of the refresh scenario through one cycle (not recorded).
    func prepareRefresh() async throws {
        var ignored = Latencies()
        try await cycle(into: &ignored)
        guard refreshToken != nil else {
            throw LoadError.setup("the token response carried no refresh_token (does the client allow refresh_token?)")
        }
    }

    /// One rotation: `grant_type=refresh_token` with the current token, keeping the new one. After a failure the
    /// user gets a fresh token through a cycle, so one lost response does not make every later rotation a reuse.
    func refresh(into latencies: inout Latencies) async throws {
        if refreshToken == nil { try await prepareRefresh() }
        guard let current = refreshToken else { throw LoadError.setup("no refresh token to rotate") }
        refreshToken = nil
        let body = FormEncoding.encode([
            ("grant_type", "refresh_token"), ("refresh_token", current), ("client_id", target.publicClientID),
        ])
        let begin = ContinuousClock.now
        let response = try await exchange(
            writer.post("/oauth2/token", contentType: "application/x-www-form-urlencoded", body: body))
        let micros = Self.micros(ContinuousClock.now - begin)
        guard response.status == 200, let next = Self.jsonString("refresh_token", in: response.body) else {
            throw LoadError.unexpected(status: response.status, detail: "refresh: \(snippet(response))")
        }
        latencies.token.record(micros)
        latencies.operation.record(micros)
        refreshToken = next
    }

    /// One `client_credentials` grant of the confidential client, authenticated with `client_secret_basic`.
    func clientCredentials(into latencies: inout Latencies) async throws {
        let begin = ContinuousClock.now
        let response = try await exchange(
            writer.post(
                "/oauth2/token", contentType: "application/x-www-form-urlencoded",
                body: "grant_type=client_credentials", fields: [basicAuthorization]))
        let micros = Self.micros(ContinuousClock.now - begin)
        guard response.status == 200, Self.jsonString("access_token", in: response.body) != nil else {
            throw LoadError.unexpected(status: response.status, detail: "client_credentials: \(snippet(response))")
        }
        latencies.token.record(micros)
        latencies.operation.record(micros)
    }

    // MARK: - Pieces

    private func redeem(_ code: String, verifier: String) async throws -> HTTPResponse {
        let body = FormEncoding.encode([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", target.redirectURI),
            ("client_id", target.publicClientID), ("code_verifier", verifier),
        ])
        let response = try await exchange(
            writer.post("/oauth2/token", contentType: "application/x-www-form-urlencoded", body: body))
        guard response.status == 200, Self.jsonString("access_token", in: response.body) != nil else {
            throw LoadError.unexpected(status: response.status, detail: "token: \(snippet(response))")
        }
        return response
    }

    private func exchange(_ request: [UInt8]) async throws -> HTTPResponse {
        requests += 1
        let response = try await connection.send(request)
        if !response.setCookies.isEmpty { cookies.store(response.setCookies) }
        return response
    }

    private func cookieFields() -> [String] {
        cookies.field.map { [$0] } ?? []
    }

    private func authorizeTarget(challenge: String, state: String) -> String {
        "/oauth2/authorize?response_type=code&client_id=\(FormEncoding.escape(target.publicClientID))"
            + "&redirect_uri=\(FormEncoding.escape(target.redirectURI))&scope=\(FormEncoding.escape(target.scope))"
            + "&state=\(state)&code_challenge=\(challenge)&code_challenge_method=S256"
    }

    private func code(from location: String, state: String) throws -> String {
        if let error = FormEncoding.queryValue("error", in: location) {
            throw LoadError.unexpected(status: 302, detail: "authorize redirected with error=\(error)")
        }
        guard let code = FormEncoding.queryValue("code", in: location), !code.isEmpty else {
            throw LoadError.unexpected(status: 302, detail: "a redirect to the client without a code")
        }
        guard FormEncoding.queryValue("state", in: location) == state else {
            throw LoadError.unexpected(status: 302, detail: "the redirect's state differs from the request's")
        }
        return code
    }

    /// A fresh verifier (43 base64url characters from 32 random bytes) and its S256 challenge.
    private func makePKCE() throws -> (verifier: String, challenge: String) {
        let verifier = Base64URL.encode(random.bytes(32))
        return (verifier, Base64URL.encode(try Digest.sha256(verifier)))
    }

    private func makeState() -> String {
        Base64URL.encode(random.bytes(12))
    }

    /// A request target for `location`, which may be absolute, absolute-path or relative to `base`.
    private func resolve(_ location: String, against base: String) -> String {
        if location.hasPrefix("/") { return location }
        if let colon = location.firstIndex(of: ":"), location[colon...].hasPrefix("://") {
            let authority = location[location.index(colon, offsetBy: 3)...]
            return authority.firstIndex(of: "/").map { String(authority[$0...]) } ?? "/"
        }
        let basePath = base.prefix { $0 != "?" }
        let directory = basePath.lastIndex(of: "/").map { basePath[...$0] } ?? "/"
        return directory + location
    }

    private func snippet(_ response: HTTPResponse) -> String {
        String(response.text.prefix(200)).replacingCharacters("\n", " ")
    }

    /// The value of the string member `name` of a flat JSON object, unescaped only for `\/` (tokens never hold
    /// other escapes): cheap enough for every response.
    static func jsonString(_ name: String, in body: [UInt8]) -> String? {
        let key = Array("\"\(name)\"".utf8)
        guard body.count > key.count else { return nil }
        var index = 0
        while index + key.count <= body.count {
            if body[index] == key[0] && body[index..<index + key.count].elementsEqual(key) {
                var position = index + key.count
                while position < body.count, body[position] == 32 || body[position] == UInt8(ascii: ":") {
                    position += 1
                }
                guard position < body.count, body[position] == UInt8(ascii: "\"") else { return nil }
                position += 1
                var value: [UInt8] = []
                while position < body.count, body[position] != UInt8(ascii: "\"") {
                    if body[position] != UInt8(ascii: "\\") { value.append(body[position]) }
                    position += 1
                }
                return String(decoding: value, as: UTF8.self)
            }
            index += 1
        }
        return nil
    }

    /// A duration in whole microseconds.
    static func micros(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
    }
}

extension String {
    /// The text with every `target` character replaced by `replacement`.
    func replacingCharacters(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
