import Testing

@testable import TesseraHTTP

/// Feeds `pieces` in order, then the end of the connection when `thenClose`, and returns the last outcome.
private func parse(
    _ pieces: [String], thenClose: Bool = false, expectsBody: Bool = true,
    configuration: HTTPClientConfiguration = .init(maxResponseBodyBytes: 64, maxResponseHeaderBytes: 256)
) -> HTTPResponseParser.Outcome {
    let parser = HTTPResponseParser(configuration: configuration, expectsBody: expectsBody)
    var outcome = HTTPResponseParser.Outcome.incomplete
    for piece in pieces {
        outcome = parser.feed(Array(piece.utf8))
    }
    return thenClose ? parser.finish() : outcome
}

private func response(_ outcome: HTTPResponseParser.Outcome) -> HTTPClientResponse? {
    if case .complete(let response) = outcome { return response }
    return nil
}

private func failure(_ outcome: HTTPResponseParser.Outcome) -> HTTPClientError? {
    if case .failed(let error) = outcome { return error }
    return nil
}

@Suite struct HTTPResponseParserTests {
    @Test func aContentLengthResponseCompletesWithItsLastByteEvenWhenSplitAnywhere() throws {
        let text = "HTTP/1.1 201 Created Here\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nX-A:  b \r\n\r\nhello"
        for split in 1..<text.utf8.count {
            let bytes = Array(text.utf8)
            let outcome = parse([
                String(decoding: bytes[..<split], as: UTF8.self),
                String(decoding: bytes[split...], as: UTF8.self),
            ])
            let parsed = try #require(response(outcome), "split at \(split)")
            #expect(parsed.status.code == 201)
            #expect(parsed.status.reasonPhrase == "Created Here")
            #expect(parsed.headers["content-type"] == "text/plain")
            #expect(parsed.headers["X-A"] == "b")
            #expect(parsed.body == Array("hello".utf8))
        }
    }

    @Test func aChunkedResponseIsDechunkedAndTrailersAreDropped() throws {
        let outcome = parse([
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            "5\r\nhello\r\n", "7;ext=1\r\n, world\r\n", "0\r\nX-Trailer: t\r\n\r\n",
        ])
        let parsed = try #require(response(outcome))
        #expect(String(decoding: parsed.body, as: UTF8.self) == "hello, world")
        #expect(parsed.headers["X-Trailer"] == nil)
    }

    @Test func aBodyWithoutLengthEndsWithTheConnection() throws {
        let pieces = ["HTTP/1.0 200 ok\r\nContent-Type: text/html\r\n\r\n", "<p>first</p>", "<p>second</p>"]
        #expect(response(parse(pieces)) == nil)
        let parsed = try #require(response(parse(pieces, thenClose: true)))
        #expect(String(decoding: parsed.body, as: UTF8.self) == "<p>first</p><p>second</p>")
    }

    @Test func interimResponsesAreSkipped() throws {
        let outcome = parse([
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
            "HTTP/1.1 204 No Content\r\nX-Final: yes\r\n\r\n",
        ])
        let parsed = try #require(response(outcome))
        #expect(parsed.status.code == 204)
        #expect(parsed.headers["X-Final"] == "yes")
        #expect(parsed.headers["Link"] == nil)
    }

    @Test func theResponseToHeadHasNoBodyWhateverItsLengthSays() throws {
        let outcome = parse(["HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"], expectsBody: false)
        let parsed = try #require(response(outcome))
        #expect(parsed.body.isEmpty)
    }

    @Test func aDeclaredLengthOverTheLimitFailsBeforeTheBodyArrives() {
        let outcome = parse(["HTTP/1.1 200 OK\r\nContent-Length: 65\r\n\r\n"])
        #expect(failure(outcome) == .responseTooLarge(limit: 64))
    }

    @Test func aChunkedBodyOverTheLimitFails() {
        let chunk = String(repeating: "x", count: 40)
        let outcome = parse([
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            "28\r\n\(chunk)\r\n", "28\r\n\(chunk)\r\n",
        ])
        #expect(failure(outcome) == .responseTooLarge(limit: 64))
    }

    @Test func anEndlessBodyOverTheLimitFails() {
        let forty = String(repeating: "x", count: 40)
        let outcome = parse(["HTTP/1.0 200 OK\r\n\r\n", forty, forty])
        #expect(failure(outcome) == .responseTooLarge(limit: 64))
    }

    @Test func headersOverTheLimitFail() {
        let outcome = parse(["HTTP/1.1 200 OK\r\nX-Big: \(String(repeating: "b", count: 300))\r\n\r\n"])
        #expect(failure(outcome) == .responseTooLarge(limit: 256))
    }

    @Test(arguments: [
        "HTTP/1.1 2OO OK\r\n\r\n",
        "<html>not http</html>",
        "HTTP/1.1 200 OK\r\nBad Name: x\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n",
        "HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n",
    ])
    func garbageIsAMalformedResponse(text: String) {
        guard case .malformedResponse? = failure(parse([text], thenClose: true)) else {
            Issue.record("expected a malformed response for \(text.debugDescription)")
            return
        }
    }

    @Test func theConnectionEndingEarlyIsAClearFailure() {
        #expect(
            failure(parse([], thenClose: true))
                == .malformedResponse(reason: "the connection closed before a response arrived"))
        #expect(
            failure(parse(["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"], thenClose: true))
                == .malformedResponse(reason: "the connection closed before the response was complete"))
        #expect(
            failure(parse(["HTTP/1.1 200 OK\r\nContent-"], thenClose: true))
                == .malformedResponse(reason: "the connection closed before the response was complete"))
    }

    @Test func bytesAfterTheResponseAreIgnoredOnceItIsComplete() throws {
        let parser = HTTPResponseParser(configuration: HTTPClientConfiguration(), expectsBody: true)
        let first = parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA".utf8))
        #expect(try #require(response(first)).body == Array("ok".utf8))
        #expect(response(parser.feed(Array("more".utf8)))?.body == Array("ok".utf8))
        #expect(response(parser.finish())?.body == Array("ok".utf8))
    }
}
