import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraTestSupport
import Testing

/// The redirect-URI rules against the shared vectors (`redirect-uris.json`) and the cases around them.
@Suite struct RedirectURITests {
    struct Vectors: Decodable {
        struct Registration: Decodable {
            let uri: String
            let allowed: Bool
        }
        struct Matching: Decodable {
            let registered: String
            let requested: String
            let match: Bool
        }
        let registration: [Registration]
        let matching: [Matching]
    }

    static func vectors() throws -> Vectors {
        try SharedVectors.load("redirect-uris.json", as: Vectors.self)
    }

    @Test func everyRegistrationVector() throws {
        let vectors = try Self.vectors()
        #expect(vectors.registration.count >= 12)
        for vector in vectors.registration {
            let error = Self.error(registering: vector.uri)
            #expect((error == nil) == vector.allowed, "\(vector.uri): \(error?.detail ?? "allowed")")
            #expect(error.map { $0.reason == .invalidRedirectURI } ?? true)
        }
    }

    @Test func everyMatchingVector() throws {
        let vectors = try Self.vectors()
        #expect(vectors.matching.count >= 11)
        for vector in vectors.matching {
            #expect(
                RedirectURI.matches(registered: vector.registered, requested: vector.requested) == vector.match,
                "\(vector.registered) ← \(vector.requested)")
        }
    }

    @Test(arguments: [
        "https://app.example.com:8443/cb", "https://APP.example.com/cb?x=1", "com.example.app:/cb",
        "com.example.app://cb", "http://127.0.0.1/", "http://[::1]/cb?x=1",
    ])
    func allowed(uri: String) {
        #expect(Self.error(registering: uri) == nil)
    }

    @Test(arguments: [
        "", "https://", "https:///cb", "https://user@app.example.com/cb", "https://app.example.com/a b",
        "https://app.example.com/\u{7F}", "http://127.0.0.2/cb", "http://127.0.0.1:0/cb", "http://[::1]:80/cb",
        "http://127.0.0.1.example.com/cb", "HTTP://localhost/cb", "data:text/html,x", "file:///etc/passwd",
        "FILE.example:/x#", "1com.example:/cb", "com_example:/cb", "urn:ietf:wg:oauth:2.0:oob",
        "https://app.example.com/" + String(repeating: "a", count: 2100),
    ])
    func refused(uri: String) {
        #expect(Self.error(registering: uri)?.reason == .invalidRedirectURI)
    }

    @Test func urisAreComparedAsBytesNotAsCanonicallyEquivalentText() {
        // "é" precomposed (U+00E9) and decomposed (e + U+0301) are equal Swift strings, and different URIs.
        let precomposed = "https://app.example/caf\u{E9}/cb"
        let decomposed = "https://app.example/cafe\u{301}/cb"
        #expect(precomposed == decomposed)
        #expect(!RedirectURI.matches(registered: precomposed, requested: decomposed))
        #expect(RedirectURI.matches(registered: precomposed, requested: precomposed))
        #expect(
            !RedirectURI.matches(
                registered: "http://127.0.0.1/caf\u{E9}", requested: "http://127.0.0.1:8080/cafe\u{301}"))
        #expect(
            RedirectURI.matches(registered: "http://127.0.0.1/caf\u{E9}", requested: "http://127.0.0.1:8080/caf\u{E9}"))
    }

    @Test func loopbackPortsMatchOnlyForLoopbackURIsWithoutOtherChanges() {
        let registered = "http://127.0.0.1/cb"
        #expect(RedirectURI.matches(registered: registered, requested: "http://127.0.0.1:1/cb"))
        #expect(RedirectURI.matches(registered: registered, requested: "http://127.0.0.1:65535/cb"))
        for requested in [
            "http://127.0.0.1:65536/cb", "http://127.0.0.1:0/cb", "http://127.0.0.1:080/cb", "http://127.0.0.1:/cb",
            "http://127.0.0.1:80x/cb", "http://user@127.0.0.1:5000/cb", "http://127.0.0.1:5000/cb/",
            "http://[::1]:5000/cb",
        ] {
            #expect(!RedirectURI.matches(registered: registered, requested: requested), "\(requested)")
        }
        #expect(
            !RedirectURI.matches(registered: "https://app.example.com/cb", requested: "https://app.example.com:1/cb"))
        #expect(!RedirectURI.matches(registered: "com.example.app:/cb", requested: "com.example.app:/cb?x"))
    }

    static func error(registering uri: String) -> AuthError? {
        do {
            try RedirectURI.validate(uri)
            return nil
        } catch {
            return error
        }
    }
}
