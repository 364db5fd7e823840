import Testing

@testable import TesseraHTTP

@Suite struct HTTPResponseEncoderTests {
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    func encode(_ response: HTTPResponse, _ context: HTTPResponseContext = HTTPResponseContext()) throws -> String {
        String(decoding: try HTTPResponseEncoder.encode(response, context: context, date: date), as: UTF8.self)
    }

    /// Every byte, against RFC 9110's `tchar` written out: a field name of one byte is a token exactly when it is
    /// one of these, and a field value refuses exactly CR, LF and NUL.
    @Test func tokenAndFieldValueBytes() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(HTTPResponseEncoder.isTokenByte(byte) == tchar.contains(byte), "\(byte)")
            let value = String(decoding: [UInt8(ascii: "a"), byte, UInt8(ascii: "b")], as: UTF8.self)
            #expect(HTTPResponseEncoder.isFieldValue(value) == ![0, 10, 13].contains(byte), "\(byte)")
        }
        #expect(!HTTPResponseEncoder.isToken(""))
        #expect(HTTPResponseEncoder.isToken("X-Request-ID"))
        #expect(!HTTPResponseEncoder.isToken("X Request"))
        #expect(!HTTPResponseEncoder.isToken("Caf\u{E9}"))
    }

    @Test func plainResponse() throws {
        let text = try encode(.text("hello"))
        #expect(
            text == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: \(date)\r\n"
                + "Content-Length: 5\r\n\r\nhello"
        )
    }

    @Test func connectionFieldFollowsTheContext() throws {
        let closing = try encode(HTTPResponse(status: .ok), HTTPResponseContext(closeConnection: true))
        #expect(closing == "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        let http10 = try encode(HTTPResponse(status: .ok), HTTPResponseContext(isHTTP10: true))
        #expect(http10.contains("\r\nConnection: keep-alive\r\n"))
        let http10Closing = try encode(
            HTTPResponse(status: .ok), HTTPResponseContext(isHTTP10: true, closeConnection: true))
        #expect(http10Closing.contains("\r\nConnection: close\r\n"))
        #expect(!http10Closing.contains("keep-alive"))
    }

    @Test func headKeepsTheLengthButNotTheBody() throws {
        let text = try encode(.text("hello"), HTTPResponseContext(isHeadRequest: true))
        #expect(text.hasSuffix("Content-Length: 5\r\n\r\n"))
    }

    @Test(arguments: [100, 101, 204, 304])
    func statusesWithoutBody(code: Int) throws {
        let response = HTTPResponse(status: HTTPStatus(code: code), body: Array("ignored".utf8))
        let text = try encode(response)
        #expect(!text.contains("Content-Length"))
        #expect(text.hasSuffix("\r\n\r\n"))
        #expect(!text.contains("ignored"))
    }

    @Test func framingFieldsOfTheHandlerAreReplaced() throws {
        let response = HTTPResponse(
            status: .ok,
            headers: ["content-length": "999", "Transfer-Encoding": "chunked", "Connection": "upgrade", "X-A": "1"],
            body: Array("abc".utf8)
        )
        let text = try encode(response)
        #expect(text == "HTTP/1.1 200 OK\r\nX-A: 1\r\nDate: \(date)\r\nContent-Length: 3\r\n\r\nabc")
    }

    @Test func handlerDateWins() throws {
        let response = HTTPResponse(status: .ok, headers: ["Date": "Mon, 07 Nov 1994 00:00:00 GMT"])
        let text = try encode(response)
        #expect(text.contains("Date: Mon, 07 Nov 1994"))
        #expect(!text.contains(date))
    }

    @Test func headerInjectionIsRefused() {
        let split = HTTPResponse(status: .found, headers: ["Location": "/x\r\nSet-Cookie: evil=1"])
        #expect(throws: HTTPResponseEncodingError.invalidHeaderField(name: "Location")) { try encode(split) }
        let badName = HTTPResponse(status: .ok, headers: ["Bad Name": "x"])
        #expect(throws: HTTPResponseEncodingError.invalidHeaderField(name: "Bad Name")) { try encode(badName) }
        let emptyName = HTTPResponse(status: .ok, headers: ["": "x"])
        #expect(throws: HTTPResponseEncodingError.invalidHeaderField(name: "")) { try encode(emptyName) }
        let badStatus = HTTPResponse(status: HTTPStatus(code: 42))
        #expect(throws: HTTPResponseEncodingError.invalidStatus(code: 42)) { try encode(badStatus) }
        let badPhrase = HTTPResponse(status: HTTPStatus(code: 200, reasonPhrase: "OK\r\nX: y"))
        #expect(throws: HTTPResponseEncodingError.invalidStatus(code: 200)) { try encode(badPhrase) }
    }

    @Test func customPhraseAndLargeCode() throws {
        let text = try encode(HTTPResponse(status: HTTPStatus(code: 599, reasonPhrase: "Custom")))
        #expect(text.hasPrefix("HTTP/1.1 599 Custom\r\n"))
    }

    @Test func continueResponse() {
        #expect(
            String(decoding: HTTPResponseEncoder.continueResponse, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
    }

    @Test(arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_700_000_000, "Tue, 14 Nov 2023 22:13:20 GMT"),
        (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
    ])
    func imfFixdate(seconds: Int, expected: String) {
        #expect(HTTPDate.imfFixdate(secondsSince1970: seconds) == expected)
    }

    @Test func dateCacheFormatsTheCurrentSecond() {
        let cache = HTTPDateCache()
        let first = cache.current()
        #expect(first.utf8.count == 29)
        #expect(first.hasSuffix(" GMT"))
        let second = cache.current()
        #expect(second.utf8.count == 29)
    }
}
