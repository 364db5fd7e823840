import TesseraHTTP
import Testing

@Suite struct PercentEncodingTests {
    @Test func decodesEscapes() throws {
        #expect(try PercentEncoding.decode("a%2Bb") == "a+b")
        #expect(try PercentEncoding.decode("a+b") == "a+b")
        #expect(try PercentEncoding.decode("a+b", plusAsSpace: true) == "a b")
        #expect(try PercentEncoding.decode("%2b%2B", plusAsSpace: true) == "++")
        #expect(try PercentEncoding.decode("caf%C3%A9") == "café")
        #expect(try PercentEncoding.decode("") == "")
        #expect(try PercentEncoding.decode("plain") == "plain")
    }

    @Test func refusesBadEscapes() {
        #expect(throws: PercentEncodingError.invalidEscape(offset: 1)) { try PercentEncoding.decode("a%zz") }
        #expect(throws: PercentEncodingError.invalidEscape(offset: 0)) { try PercentEncoding.decode("%") }
        #expect(throws: PercentEncodingError.invalidEscape(offset: 0)) { try PercentEncoding.decode("%2") }
        #expect(throws: PercentEncodingError.invalidEscape(offset: 2)) { try PercentEncoding.decode("ab%g1") }
        #expect(throws: PercentEncodingError.invalidEscape(offset: 3)) { try PercentEncoding.decode("%41%4") }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: PercentEncodingError.invalidUTF8) { try PercentEncoding.decode("%FF") }
        #expect(throws: PercentEncodingError.invalidUTF8) { try PercentEncoding.decode("%C3") }
        #expect(throws: PercentEncodingError.invalidUTF8) { try PercentEncoding.decode("%C0%AF") }
    }

    @Test func refusesNULCharacters() {
        #expect(throws: PercentEncodingError.nulCharacter) { try PercentEncoding.decode("a%00b") }
        #expect(throws: PercentEncodingError.nulCharacter) { try URLEncodedForm(parsing: "code=abc%00def&x=1") }
        #expect(throws: PercentEncodingError.nulCharacter) { try URLEncodedForm(parsing: [0x61, 0x3D, 0x00]) }
    }

    @Test func encodesEverythingButUnreserved() throws {
        #expect(PercentEncoding.encode("a-b.c_d~e") == "a-b.c_d~e")
        #expect(PercentEncoding.encode("a b+c&d=é/") == "a%20b%2Bc%26d%3D%C3%A9%2F")
        #expect(PercentEncoding.encode("xa b/y".dropFirst().dropLast()) == "a%20b%2F")
        #expect(PercentEncoding.encode("%%") == "%25%25")
        for text in ["", "x y", "ÿ+%&=?#", "日本"] {
            #expect(try PercentEncoding.decode(PercentEncoding.encode(text)) == text)
        }
    }
}

@Suite struct URLEncodedFormTests {
    @Test func keepsOrderAndRepeatedNames() throws {
        let form = try URLEncodedForm(
            parsing: "scope=openid+email&scope=profile&redirect_uri=https%3A%2F%2Fa.example%2Fcb")
        #expect(form.fields.map(\.name) == ["scope", "scope", "redirect_uri"])
        #expect(form.values(of: "scope") == ["openid email", "profile"])
        #expect(form["scope"] == "openid email")
        #expect(form["redirect_uri"] == "https://a.example/cb")
        #expect(form["missing"] == nil)
    }

    @Test func edgeCases() throws {
        let form = try URLEncodedForm(parsing: "&&a&b=&=c&d==e&&")
        #expect(form.fields.map(\.name) == ["a", "b", "", "d"])
        #expect(form.fields.map(\.value) == ["", "", "c", "=e"])
        #expect(try URLEncodedForm(parsing: "").fields.isEmpty)
        #expect(try URLEncodedForm(parsing: "a%2Bb=1%2B1")["a+b"] == "1+1")
    }

    @Test func separatorsAloneReserveNoRoom() throws {
        // The parse makes room for the pairs it counts, but only up to a bound: a body of separators holds none.
        let form = try URLEncodedForm(parsing: [UInt8](repeating: UInt8(ascii: "&"), count: 100_000))
        #expect(form.fields.isEmpty)
        #expect(form.fields.capacity < 64)
        let many = try URLEncodedForm(parsing: (0..<100).map { "p\($0)=v" }.joined(separator: "&"))
        #expect(many.fields.count == 100 && many["p99"] == "v")
    }

    @Test func badInputThrows() {
        #expect(throws: PercentEncodingError.invalidEscape(offset: 0)) { try URLEncodedForm(parsing: "a=%zz") }
        #expect(throws: PercentEncodingError.invalidUTF8) { try URLEncodedForm(parsing: "a=%FF") }
        #expect(throws: PercentEncodingError.invalidUTF8) { try URLEncodedForm(parsing: [0x61, 0x3D, 0xFF]) }
    }

    /// Forms of up to a dozen bytes drawn from separators, escapes, `+`, NUL and UTF-8 fragments parse as a
    /// reference parser of their definition says: the same pairs, or the same error (for the first part that fails,
    /// a bad escape before a NUL before bytes that are not UTF-8).
    @Test func parsesAsTheDefinitionSaysForManyForms() {
        let alphabet: [[UInt8]] = [
            [0x61], [0x62], [0x3D], [0x26], [0x25], [0x2B], [0x34], [0x31], [0x46], [0x66], [0x7A], [0x00], [0xC3],
            [0xA9], [0xFF], [0x20], Array("%41".utf8), Array("%00".utf8), Array("%C3%A9".utf8), Array("%c3".utf8),
        ]
        var generator = SeededGenerator(seed: 0x7E55E7A)
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            let body = (0..<Int.random(in: 0...8, using: &generator)).flatMap { _ in
                alphabet.randomElement(using: &generator)!
            }
            let parsed = Result { () throws(PercentEncodingError) in try URLEncodedForm(parsing: body).fields }
            let expected = Result { () throws(PercentEncodingError) in try Self.referenceFields(body) }
            switch (parsed, expected) {
            case (.success(let got), .success(let want))
            where got.map(\.name) == want.map(\.name) && got.map(\.value) == want.map(\.value):
                continue
            case (.failure(let got), .failure(let want)) where got == want:
                continue
            default:
                mismatches.append("\(body): \(parsed) against \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    /// The form's definition, one step at a time: pairs split at `&`, empty ones skipped, each split at its first
    /// `=`, each part decoded alone.
    static func referenceFields(_ body: [UInt8]) throws(PercentEncodingError) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let pair = Array(pair)
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                fields.append(
                    (try referenceDecode(Array(pair[..<equals])), try referenceDecode(Array(pair[(equals + 1)...]))))
            } else {
                fields.append((try referenceDecode(pair), ""))
            }
        }
        return fields
    }

    static func referenceDecode(_ part: [UInt8]) throws(PercentEncodingError) -> String {
        var decoded: [UInt8] = []
        var index = 0
        while index < part.count {
            if part[index] == UInt8(ascii: "%") {
                let digits =
                    index + 2 < part.count ? String(decoding: part[(index + 1)...(index + 2)], as: UTF8.self) : ""
                guard digits.count == 2, digits.allSatisfy(\.isHexDigit), let byte = UInt8(digits, radix: 16) else {
                    throw .invalidEscape(offset: index)
                }
                decoded.append(byte)
                index += 3
            } else {
                decoded.append(part[index] == UInt8(ascii: "+") ? UInt8(ascii: " ") : part[index])
                index += 1
            }
        }
        if decoded.contains(0) { throw .nulCharacter }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }

    @Test func bodyAndQueryOfARequest() throws {
        let request = HTTPRequest(
            method: .post, target: "/oauth2/token?a=1&a=2", body: Array("grant_type=authorization_code&code=x%2By".utf8)
        )
        #expect(try request.queryItems().values(of: "a") == ["1", "2"])
        #expect(try request.formItems()["code"] == "x+y")
        #expect(try HTTPRequest(method: .get, target: "/").queryItems().fields.isEmpty)
    }

    @Test func encodesRoundTrip() throws {
        var form = URLEncodedForm()
        form.add(name: "state", value: "a b&c")
        form.add(name: "code", value: "xyz")
        #expect(form.encoded == "state=a%20b%26c&code=xyz")
        let parsed = try URLEncodedForm(parsing: form.encoded)
        #expect(parsed["state"] == "a b&c")
    }
}

@Suite struct CookieTests {
    @Test func parsesPairs() {
        let cookies = HTTPCookies.parse("a=1; b=2;c=3 ;  d = 4 ; e=\"quoted\"; a=again")
        #expect(cookies.map(\.name) == ["a", "b", "c", "d", "e", "a"])
        #expect(cookies.map(\.value) == ["1", "2", "3", "4", "quoted", "again"])
    }

    @Test func skipsJunk() {
        let cookies = HTTPCookies.parse(";; novalue; =nameless; ok=yes; empty=; x=a=b")
        #expect(cookies.map(\.name) == ["ok", "empty", "x"])
        #expect(cookies.map(\.value) == ["yes", "", "a=b"])
        #expect(HTTPCookies.parse("").isEmpty)
        #expect(HTTPCookies.parse("   ").isEmpty)
        #expect(HTTPCookies.parse("q=\"").map(\.value) == ["\""])
    }

    @Test func requestCookiesAcrossFields() {
        var headers = HTTPHeaders()
        headers.add(name: "Cookie", value: "sid=abc; theme=dark")
        headers.add(name: "cookie", value: "csrf=xyz")
        let request = HTTPRequest(method: .get, target: "/", headers: headers)
        #expect(request.cookies.map(\.name) == ["sid", "theme", "csrf"])
        #expect(request.cookie(named: "csrf") == "xyz")
        #expect(request.cookie(named: "none") == nil)
    }

    /// `value(named:in:)` scans for one name; it must find what `parse` finds first, junk and quotes alike.
    @Test func oneCookieIsReadAsParsingThemAllReadsIt() {
        for header in [
            "a=1; b=2;c=3 ;  d = 4 ; e=\"quoted\"; a=again", ";; novalue; =nameless; ok=yes; empty=; x=a=b", "",
            "   ", "q=\"", "a", "a=", " a = \"\" ", "ab=1; a=2", "a=1;a=2", "é=3; e=4", "\ta\t=\t5\t",
        ] {
            for name in ["a", "b", "c", "d", "e", "ok", "empty", "x", "q", "ab", "é", "novalue", "", "A"] {
                #expect(
                    HTTPCookies.value(named: name, in: header)
                        == HTTPCookies.parse(header).first { $0.name == name }?.value, "\(name) in \(header)")
            }
        }
    }

    @Test func setCookieDefaultsAreSafe() throws {
        #expect(try SetCookie(name: "sid", value: "abc").headerValue() == "sid=abc; Path=/; HttpOnly; SameSite=Lax")
    }

    @Test func setCookieWithEveryAttribute() throws {
        let cookie = SetCookie(
            name: "__Host-sid", value: "a.b-c_d", path: "/oauth2", domain: "auth.example", maxAge: 3600,
            secure: true, httpOnly: true, sameSite: .strict
        )
        #expect(
            try cookie.headerValue()
                == "__Host-sid=a.b-c_d; Path=/oauth2; Domain=auth.example; Max-Age=3600; Secure; HttpOnly; "
                + "SameSite=Strict"
        )
        let bare = SetCookie(name: "x", value: "", path: nil, httpOnly: false, sameSite: nil)
        #expect(try bare.headerValue() == "x=")
        #expect(try SetCookie.deletion(name: "sid").headerValue() == "sid=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
    }

    @Test func setCookieRefusesBadInput() throws {
        #expect(throws: SetCookieError.invalidName("")) { try SetCookie(name: "", value: "v").headerValue() }
        #expect(throws: SetCookieError.invalidName("a b")) { try SetCookie(name: "a b", value: "v").headerValue() }
        #expect(throws: SetCookieError.invalidName("a=b")) { try SetCookie(name: "a=b", value: "v").headerValue() }
        for value in ["a b", "a;b", "a,b", "\"q\"", "a\\b", "é", "a\r\nb"] {
            #expect(throws: SetCookieError.invalidValue(name: "n")) {
                try SetCookie(name: "n", value: value).headerValue()
            }
        }
        #expect(throws: SetCookieError.invalidAttribute(name: "n")) {
            try SetCookie(name: "n", value: "v", path: "/a;Secure").headerValue()
        }
        #expect(throws: SetCookieError.invalidAttribute(name: "n")) {
            try SetCookie(name: "n", value: "v", domain: "").headerValue()
        }
        #expect(throws: SetCookieError.sameSiteNoneRequiresSecure(name: "n")) {
            try SetCookie(name: "n", value: "v", sameSite: SetCookie.SameSite.none).headerValue()
        }
        #expect(
            try SetCookie(name: "n", value: "v", secure: true, sameSite: SetCookie.SameSite.none).headerValue()
                .hasSuffix("SameSite=None"))
    }

    @Test func responseSetCookie() throws {
        var response = HTTPResponse(status: .ok)
        try response.setCookie(SetCookie(name: "a", value: "1"))
        try response.setCookie(SetCookie(name: "b", value: "2"))
        #expect(response.headers.values(of: "Set-Cookie").count == 2)
        #expect(throws: SetCookieError.self) { try response.setCookie(SetCookie(name: "c", value: "x y")) }
        #expect(response.headers.values(of: "Set-Cookie").count == 2)
    }
}
