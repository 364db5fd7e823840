import FoundationEssentials
import TesseraCrypto
import TesseraHTTP
import TesseraOAuth
import Testing

/// A browser driving the handlers in-process: it keeps cookies (honouring `Max-Age=0`), posts forms with their
/// hidden inputs, and follows redirects to the server's own pages.
struct Browser {
    let login: OAuthLogin
    /// Cookie name → value.
    var cookies: [String: String] = [:]
    /// The `Set-Cookie` values of every response, in order.
    var setCookies: [String] = []
    /// The peer address of its requests: random, because SMS send limits per client live in the shared database.
    var address = "10.\(UInt8.random(in: 0...255)).\(UInt8.random(in: 0...255)).\(UInt8.random(in: 1...254)):5555"

    /// Sends one request to the handler of its path.
    mutating func send(
        _ method: HTTPMethod, _ target: String, form: [(String, String)]? = nil
    ) async throws
        -> HTTPResponse
    {
        var headers = HTTPHeaders()
        if !cookies.isEmpty {
            headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        var body: [UInt8] = []
        if let form {
            headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            body = Array(URLEncodedForm(fields: form.map { (name: $0.0, value: $0.1) }).encoded.utf8)
        }
        let request = HTTPRequest(
            method: method, target: target, headers: headers, body: body, remoteAddress: address)
        let route = try #require(OAuthLogin.Route(rawValue: request.path), "no route for \(request.path)")
        #expect(route.methods.contains(method))
        let response = await login.respond(to: request, at: route)
        for value in response.headers.values(of: "Set-Cookie") {
            setCookies.append(value)
            let pair = value.split(separator: ";")[0]
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            if value.contains("Max-Age=0") {
                cookies[name] = nil
            } else {
                cookies[name] = String(pair[pair.index(after: equals)...])
            }
        }
        return response
    }

    /// `GET /oauth2/authorize` with `parameters`, following redirects to the server's pages.
    mutating func authorize(_ parameters: [(String, String)]) async throws -> HTTPResponse {
        let query = URLEncodedForm(fields: parameters.map { (name: $0.0, value: $0.1) }).encoded
        return try await follow(try await send(.get, "/oauth2/authorize?" + query))
    }

    /// Follows redirects whose target is one of the server's own paths.
    mutating func follow(_ response: HTTPResponse) async throws -> HTTPResponse {
        var response = response
        while [302, 303].contains(response.status.code), let location = response.headers["Location"],
            location.hasPrefix("/")
        {
            response = try await send(.get, location)
        }
        return response
    }

    /// Posts the form `formID` of `page` to its action, with the page's hidden inputs plus `fields` (a field
    /// given with a hidden input's name replaces it), following redirects to the server's pages.
    mutating func submit(
        _ page: HTTPResponse, form formID: String, _ fields: [(String, String)] = [], provesWork: Bool = true
    ) async throws -> HTTPResponse {
        let form = try #require(Page(page).form(formID), "no form \(formID) on the page")
        var posted = form.hidden.filter { hidden in !fields.contains { $0.0 == hidden.0 } }
        posted += fields
        if provesWork, let proof = form.proofOfWork {
            // What login.js does before the form is sent.
            let values = proof.fields.map { name in
                let value = fields.first { $0.0 == name }?.1 ?? ""
                return String(value.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
            }
            let nonce = try ProofOfWork.solve(challenge: proof.challenge, values: values, bits: proof.bits)
            posted = posted.filter { $0.0 != "pow-nonce" } + [("pow-nonce", nonce)]
        }
        return try await follow(try await send(.post, form.action, form: posted))
    }
}

/// Reading a page's HTML the simple way: the pages are the server's own, so their markup is regular.
struct Page {
    let html: String

    init(_ response: HTTPResponse) {
        html = String(decoding: response.body, as: UTF8.self)
    }

    /// The proof of work a form asks for (`data-pow-*`).
    struct ProofOfWorkRequest {
        let bits: Int
        let challenge: String
        let fields: [String]
    }

    /// The action and hidden inputs of the form with id `id`, and the proof of work it asks for.
    func form(_ id: String) -> (action: String, hidden: [(String, String)], proofOfWork: ProofOfWorkRequest?)? {
        guard let start = html.firstRange(of: #"<form id="\#(id)""#) else { return nil }
        let rest = html[start.lowerBound...]
        guard let end = rest.firstRange(of: "</form>") else { return nil }
        let form = String(rest[..<end.upperBound])
        guard let action = Self.attribute("action", in: form) else { return nil }
        let tag = String(form[..<(form.firstIndex(of: ">") ?? form.endIndex)])
        let proof = Self.attribute("data-pow-bits", in: tag).flatMap(Int.init).map { bits in
            ProofOfWorkRequest(
                bits: bits, challenge: Self.attribute("data-pow-challenge", in: tag) ?? "",
                fields: (Self.attribute("data-pow-fields", in: tag) ?? "").split(separator: " ").map(String.init))
        }
        var hidden: [(String, String)] = []
        var remaining = form[...]
        while let input = remaining.firstRange(of: #"<input type="hidden""#) {
            let tail = remaining[input.lowerBound...]
            let tag = String(tail[..<(tail.firstIndex(of: ">") ?? tail.endIndex)])
            if let name = Self.attribute("name", in: tag), let value = Self.attribute("value", in: tag) {
                hidden.append((name, value))
            }
            remaining = remaining[input.upperBound...]
        }
        return (action, hidden, proof)
    }

    /// Whether the page contains `text`.
    func contains(_ text: String) -> Bool { html.contains(text) }

    /// The text of the element with id `id` (up to its first tag).
    func text(of id: String) -> String? {
        guard let start = html.firstRange(of: #"id="\#(id)""#) else { return nil }
        let rest = html[start.upperBound...]
        guard let open = rest.firstIndex(of: ">") else { return nil }
        let content = rest[rest.index(after: open)...]
        return String(content[..<(content.firstIndex(of: "<") ?? content.endIndex)])
    }

    /// The attribute `name` of the element with id `id`, HTML entities of `&` undone (as in a link's `href`).
    func attribute(_ name: String, ofID id: String) -> String? {
        guard let start = html.firstRange(of: #"id="\#(id)""#) else { return nil }
        let opening = html[..<start.lowerBound].lastIndex(of: "<") ?? start.lowerBound
        let rest = html[opening...]
        let tag = String(rest[..<(rest.firstIndex(of: ">") ?? rest.endIndex)])
        return Self.attribute(name, in: tag)?.replacing("&amp;", with: "&")
    }

    private static func attribute(_ name: String, in tag: String) -> String? {
        guard let start = tag.firstRange(of: #" \#(name)=""#) else { return nil }
        let rest = tag[start.upperBound...]
        return String(rest[..<(rest.firstIndex(of: "\"") ?? rest.endIndex)])
    }
}

/// The query of a redirect to the client, read.
struct ClientRedirect {
    let uri: String
    let query: URLEncodedForm

    /// The `Location` of `response` when it leads to `redirectURI` (anything after it is its query).
    init(_ response: HTTPResponse, to redirectURI: String) throws {
        #expect([302, 303].contains(response.status.code), "status \(response.status.code)")
        let location = try #require(response.headers["Location"])
        try #require(location.hasPrefix(redirectURI), "redirected to \(location)")
        uri = location
        let rest = location.dropFirst(redirectURI.count)
        query = try URLEncodedForm(parsing: rest.drop { $0 == "?" || $0 == "&" })
    }
}

/// The page script's proof of work, done the same way (docs/login-pages.md).
enum ProofOfWork {
    /// The first nonce whose SHA-256 over the challenge, the values and itself starts with `bits` zero bits.
    static func solve(challenge: String, values: [String], bits: Int) throws -> String {
        var nonce = 0
        while true {
            let digest = try Digest.sha256(challenge + "\n" + values.joined(separator: "\n") + "\n" + String(nonce))
            var zeros = 0
            for byte in digest {
                if byte == 0 {
                    zeros += 8
                    continue
                }
                zeros += byte.leadingZeroBitCount
                break
            }
            if zeros >= bits { return String(nonce) }
            nonce += 1
        }
    }
}
