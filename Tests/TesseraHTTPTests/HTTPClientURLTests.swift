import Testing

@testable import TesseraHTTP

@Suite struct HTTPClientURLTests {
    @Test func parsesNamesAddressesPortsAndTargets() throws {
        let plain = try HTTPClientURL(parsing: "http://Hooks.Example.com/sms?tenant=a#frag")
        #expect(plain.scheme == .http)
        #expect(plain.host == "hooks.example.com")
        #expect(!plain.hostIsIPAddress)
        #expect(plain.port == 80)
        #expect(plain.target == "/sms?tenant=a")
        #expect(plain.hostField == "hooks.example.com")

        let secure = try HTTPClientURL(parsing: "HTTPS://127.0.0.1:8443")
        #expect(secure.scheme == .https)
        #expect(secure.host == "127.0.0.1")
        #expect(secure.hostIsIPAddress)
        #expect(secure.port == 8443)
        #expect(secure.target == "/")
        #expect(secure.origin == "https://127.0.0.1:8443")

        let ipv6 = try HTTPClientURL(parsing: "http://[::1]:8081?x=1")
        #expect(ipv6.host == "::1")
        #expect(ipv6.hostIsIPAddress)
        #expect(ipv6.port == 8081)
        #expect(ipv6.target == "/?x=1")
        #expect(ipv6.hostField == "[::1]:8081")
        #expect(ipv6.description == "http://[::1]:8081/?x=1")

        #expect(try HTTPClientURL(parsing: "https://[FE80::1]/").hostField == "[fe80::1]")
        #expect(try HTTPClientURL(parsing: "https://example.com:443/a").hostField == "example.com")
        #expect(try HTTPClientURL(parsing: "http://my_host.internal./x").host == "my_host.internal.")
    }

    @Test(arguments: [
        ("", "not an absolute URL"),
        ("example.com/path", "not an absolute URL"),
        ("ftp://example.com/", "the scheme must be http or https"),
        ("http:///path", "the host is missing"),
        ("http://:80/", "the host is missing"),
        ("http://user:secret@example.com/", "user information"),
        ("http://example.com:0/", "the port must be"),
        ("http://example.com:65536/", "the port must be"),
        ("http://example.com:80a/", "the port must be"),
        ("http://example.com:/", "the port must be"),
        ("http://[::1/", "closing bracket"),
        ("http://[::1]x/", "unexpected text after the IPv6 address"),
        ("http://[not-v6]/", "not an IPv6 address"),
        ("http://::1/", "must be written in brackets"),
        ("http://256.1.1.1/", "not a valid IPv4 address"),
        ("http://1.2.3/", "not a valid IPv4 address"),
        ("http://exa mple.com/", "ASCII letters"),
        ("http://exämple.com/", "ASCII letters"),
        ("http://a..b/", "empty or over-long label"),
        ("http://example.com/a b", "percent-encoded"),
        ("http://example.com/a\r\nX: y", "percent-encoded"),
        ("http://example.com/ä", "percent-encoded"),
    ])
    func refusesBadURLsWithAReason(url: String, expected: String) {
        #expect {
            try HTTPClientURL(parsing: url)
        } throws: { error in
            guard case .invalidURL(let reason) = error as? HTTPClientError else { return false }
            return reason.contains(expected)
        }
    }

    @Test func anOverlongHostNameIsRefused() {
        let label = String(repeating: "a", count: 64)
        #expect(throws: HTTPClientError.self) { try HTTPClientURL(parsing: "http://\(label).example/") }
        let long = Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: ".")
        #expect(throws: HTTPClientError.self) { try HTTPClientURL(parsing: "http://\(long)/") }
    }

    @Test func errorsDoNotRepeatTheURL() {
        #expect {
            try HTTPClientURL(parsing: "http://example.com/hook?token=s3cret value")
        } throws: { error in
            !"\(error)".contains("s3cret")
        }
    }
}

@Suite struct HTTPClientRequestEncoderTests {
    @Test func writesHostLengthAndCloseAfterTheCallersFields() throws {
        let url = try HTTPClientURL(parsing: "http://[::1]:8081/rpc?a=1")
        let request = HTTPClientRequest(
            method: .post, url: url.description, headers: ["Authorization": "Bearer k"], body: Array("{}".utf8))
        let bytes = try HTTPClientRequestEncoder.encode(request, url: url, userAgent: "Tessera-Test")
        #expect(
            String(decoding: bytes, as: UTF8.self) == """
                POST /rpc?a=1 HTTP/1.1\r
                Host: [::1]:8081\r
                User-Agent: Tessera-Test\r
                Authorization: Bearer k\r
                Content-Length: 2\r
                Connection: close\r
                \r
                {}
                """)
    }

    @Test func aGetWithoutBodyHasNoLengthAndTheCallersHostAndAgentWin() throws {
        let url = try HTTPClientURL(parsing: "http://127.0.0.1:9/")
        let request = HTTPClientRequest(url: url.description, headers: ["host": "virtual.test", "User-Agent": "me"])
        let bytes = try HTTPClientRequestEncoder.encode(request, url: url, userAgent: "Tessera")
        #expect(
            String(decoding: bytes, as: UTF8.self) == """
                GET / HTTP/1.1\r
                host: virtual.test\r
                User-Agent: me\r
                Connection: close\r
                \r

                """)
    }

    @Test(arguments: [
        (HTTPHeaders(["Content-Length": "5"]), "sets Content-Length itself"),
        (HTTPHeaders(["transfer-encoding": "chunked"]), "sets Transfer-Encoding itself"),
        (HTTPHeaders(["Connection": "keep-alive"]), "sets Connection itself"),
        (HTTPHeaders(["X-Evil": "a\r\nSet-Cookie: b"]), "contains CR, LF or NUL"),
        (HTTPHeaders(["Bad Name": "x"]), "not an HTTP token"),
        (HTTPHeaders(["": "x"]), "not an HTTP token"),
    ])
    func refusesFieldsItCannotWriteSafely(headers: HTTPHeaders, expected: String) throws {
        let url = try HTTPClientURL(parsing: "http://127.0.0.1/")
        let request = HTTPClientRequest(method: .post, url: url.description, headers: headers)
        #expect {
            try HTTPClientRequestEncoder.encode(request, url: url, userAgent: "Tessera")
        } throws: { error in
            guard case .invalidRequest(let reason) = error as? HTTPClientError else { return false }
            return reason.contains(expected)
        }
    }

    @Test func refusesAMethodThatIsNotAToken() throws {
        let url = try HTTPClientURL(parsing: "http://127.0.0.1/")
        let request = HTTPClientRequest(method: .other("GET /x HTTP/1.1\r\n"), url: url.description)
        #expect(throws: HTTPClientError.invalidRequest(reason: "the method is not an HTTP token")) {
            try HTTPClientRequestEncoder.encode(request, url: url, userAgent: "Tessera")
        }
    }
}

extension HTTPHeaders {
    /// Builds headers from a Swift dictionary literal with one entry (for parameterized tests).
    init(_ fields: KeyValuePairs<String, String>) {
        self.init()
        for (name, value) in fields { add(name: name, value: value) }
    }
}
