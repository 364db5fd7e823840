import TesseraHTTP
import Testing

@Suite struct HTTPRequestParserTests {
    let post =
        "POST /rpc?x=1 HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\nhello world"

    @Test func simpleGet() throws {
        let events = parse("GET /healthz?verbose=1 HTTP/1.1\r\nHost: example\r\nX-Two:  spaced value \t\r\n\r\n")
        #expect(
            seen(events) == [
                .started, .headers(expectsContinue: false),
                .request(method: "GET", target: "/healthz?verbose=1", body: ""),
            ]
        )
        let request = try #require(requests(events).first)
        #expect(request.path == "/healthz")
        #expect(request.query == "verbose=1")
        #expect(request.version == (1, 1))
        #expect(request.keepAlive)
        #expect(request.headers["host"] == "example")
        #expect(request.headers["X-Two"] == "spaced value")
    }

    @Test func byteByByteMatchesWholeFeed() throws {
        let whole = seen(parse(post))
        let pieces = seen(parse(post, chunkSize: 1))
        #expect(whole == pieces)
        #expect(
            pieces == [
                .started, .headers(expectsContinue: false),
                .request(method: "POST", target: "/rpc?x=1", body: "hello world"),
            ])
        let request = try #require(requests(parse(post, chunkSize: 1)).first)
        #expect(request.headers.fields.map(\.name) == ["Host", "Content-Type", "Content-Length"])
        #expect(request.headers["content-type"] == "application/json")
    }

    @Test func tenPipelinedRequestsInOneFeed() {
        var text = ""
        for index in 0..<10 {
            text +=
                index % 2 == 0
                ? "GET /r\(index) HTTP/1.1\r\nHost: a\r\n\r\n"
                : "POST /r\(index) HTTP/1.1\r\nContent-Length: 2\r\n\r\n#\(index)"
        }
        for chunkSize in [nil, 1, 7] {
            let events = parse(text, chunkSize: chunkSize)
            #expect(events.count == 30)
            let got = requests(events)
            #expect(got.map(\.target) == (0..<10).map { "/r\($0)" })
            #expect(
                got.map { String(decoding: $0.body, as: UTF8.self) } == (0..<10).map { $0 % 2 == 0 ? "" : "#\($0)" })
        }
    }

    /// The server's connection passes one buffer for every read: each feed appends to it, whatever it holds, and the
    /// events are those the array-returning feed reports.
    @Test func feedingIntoABufferAppendsTheSameEvents() {
        let text = "GET /a HTTP/1.1\r\nHost: a\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi"
        let bytes = Array(text.utf8)
        let parser = HTTPRequestParser()
        var buffer: [HTTPParserEvent] = [.requestStarted]
        for start in stride(from: 0, to: bytes.count, by: 5) {
            bytes[start..<min(start + 5, bytes.count)].withUnsafeBytes { parser.feed($0, into: &buffer) }
        }
        #expect(seen(buffer) == [.started] + seen(parse(text)))
        #expect(seen(buffer).count == 7)
    }

    /// A request's members are shared by its copies until one is changed: the change is that copy's alone.
    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let original = HTTPRequest(
            method: .post, target: "/a?x=1", headers: ["Host": "h"], body: [1, 2], remoteAddress: "10.0.0.1:5")
        var copy = original
        copy.headers.add(name: "X", value: "y")
        copy.body.append(3)
        copy.id = "changed"
        copy.method = .put
        #expect(original.headers.fields.count == 1 && original.body == [1, 2] && original.id == "")
        #expect(original.method == .post && original.path == "/a" && original.query == "x=1")
        #expect(copy.headers["X"] == "y" && copy.body == [1, 2, 3] && copy.id == "changed" && copy.method == .put)
        #expect(copy.remoteAddress == "10.0.0.1:5" && copy.target == "/a?x=1")
        var alone = HTTPRequest(method: .get, target: "/")
        alone.body = [9]
        alone.keepAlive = false
        #expect(alone.body == [9] && !alone.keepAlive)
    }

    /// Each request read gets an id of its own and the connection's peer address.
    @Test func requestsReadGetAnIdAndThePeerAddress() {
        let parser = HTTPRequestParser()
        parser.remoteAddress = "192.0.2.7:4000"
        let read = requests(parser.feed(Array("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n".utf8)))
        #expect(read.count == 2)
        #expect(read.allSatisfy { $0.remoteAddress == "192.0.2.7:4000" && $0.id.utf8.count == 16 })
        #expect(read[0].id != read[1].id)
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let text =
            "POST /form HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n"
            + "GET /next HTTP/1.1\r\n\r\n"
        for chunkSize in [nil, 1, 3] {
            let events = parse(text, chunkSize: chunkSize)
            #expect(
                seen(events) == [
                    .started, .headers(expectsContinue: false),
                    .request(method: "POST", target: "/form", body: "hello world"),
                    .started, .headers(expectsContinue: false), .request(method: "GET", target: "/next", body: ""),
                ]
            )
            let request = try #require(requests(events).first)
            #expect(!request.headers.contains("X-Trailer"))
            #expect(request.headers["Transfer-Encoding"] == "chunked")
        }
    }

    @Test func contentLengthZero() throws {
        let events = parse("POST /empty HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        #expect(
            seen(events) == [
                .started, .headers(expectsContinue: false), .request(method: "POST", target: "/empty", body: ""),
            ])
    }

    @Test func leadingEmptyLinesAreSkipped() {
        let events = parse("\r\n\r\nGET / HTTP/1.1\r\n\r\n")
        #expect(requests(events).map(\.target) == ["/"])
    }

    @Test func duplicateFieldsAndUncommonMethods() throws {
        let events = parse("PURGE /x HTTP/1.1\r\nA: 1\r\na: 2\r\n\r\nOPTIONS * HTTP/1.1\r\n\r\n")
        let got = requests(events)
        #expect(got.count == 2)
        #expect(got[0].method == .other("PURGE"))
        #expect(got[0].headers.values(of: "A") == ["1", "2"])
        #expect(got[1].method == .options)
        #expect(got[1].target == "*")
    }

    @Test func headerSectionAtTheLimitIsAccepted() {
        let configuration = HTTPServerConfiguration(maxHeaderBytes: 100)
        let head = "GET / HTTP/1.1\r\nX: "
        let padding = String(repeating: "a", count: 100 - head.utf8.count - 4)
        let exact = head + padding + "\r\n\r\n"
        #expect(exact.utf8.count == 100)
        for chunkSize in [nil, 1, 9] {
            #expect(requests(parse(exact, chunkSize: chunkSize, configuration: configuration)).count == 1)
            let over = head + padding + "b\r\n\r\n"
            #expect(failures(parse(over, chunkSize: chunkSize, configuration: configuration)) == [.headersTooLarge])
        }
    }

    @Test func oversizeHeadersAre431() {
        let big = "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "x", count: 17 * 1024) + "\r\n\r\n"
        for chunkSize in [nil, 1, 1000] {
            let events = parse(big, chunkSize: chunkSize)
            #expect(seen(events) == [.started, .failure(.headersTooLarge)])
        }
        #expect(HTTPParseError.headersTooLarge.status.code == 431)
    }

    @Test func headersThatNeverEndAreCutOffWhileStreaming() {
        let parser = HTTPRequestParser(configuration: HTTPServerConfiguration(maxHeaderBytes: 1024))
        var events = parser.feed(Array("GET / HTTP/1.1\r\n".utf8))
        for index in 0..<200 where !parser.isFinished {
            events += parser.feed(Array("X-\(index): v\r\n".utf8))
        }
        #expect(failures(events) == [.headersTooLarge])
        #expect(parser.isFinished)
    }

    @Test func manySmallPipelinedRequestsDoNotAddUpToTheHeaderLimit() {
        let one = "GET / HTTP/1.1\r\nHost: a\r\n\r\n"
        let text = String(repeating: one, count: 50)
        let events = parse(text, configuration: HTTPServerConfiguration(maxHeaderBytes: 64))
        #expect(requests(events).count == 50)
        #expect(failures(events).isEmpty)
    }

    @Test func oversizeContentLengthIs413WithoutReadingTheBody() {
        let parser = HTTPRequestParser(configuration: HTTPServerConfiguration(maxBodyBytes: 10))
        let events = parser.feed(Array("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n".utf8))
        #expect(seen(events) == [.started, .failure(.bodyTooLarge)])
        #expect(parser.feed(Array("hello world".utf8)).isEmpty)
        #expect(HTTPParseError.bodyTooLarge.status.code == 413)

        let huge = parse("POST / HTTP/1.1\r\nContent-Length: 1048577\r\n\r\n")
        #expect(failures(huge) == [.bodyTooLarge])
        let atLimit = parse(
            "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789",
            configuration: HTTPServerConfiguration(maxBodyBytes: 10))
        #expect(requests(atLimit).count == 1)
    }

    @Test func oversizeChunkedBodyIs413() {
        let configuration = HTTPServerConfiguration(maxBodyBytes: 8)
        let text = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n4\r\nabcd\r\n0\r\n\r\n"
        for chunkSize in [nil, 1] {
            #expect(failures(parse(text, chunkSize: chunkSize, configuration: configuration)) == [.bodyTooLarge])
        }
        let fits = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n"
        #expect(requests(parse(fits, chunkSize: 1, configuration: configuration)).count == 1)
        // A chunk that declares more than the limit fails at its size line, before any of its data.
        let parser = HTTPRequestParser(configuration: configuration)
        let events = parser.feed(Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffff\r\n".utf8))
        #expect(failures(events) == [.bodyTooLarge])
    }

    @Test(arguments: [
        "GET\r\n\r\n",
        "GET / HTTP/1.1 extra\r\n\r\n",
        "G@T / HTTP/1.1\r\n\r\n",
        "GET / XTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nX : y\r\n\r\n",
        "GET / HTTP/1.1\r\n: y\r\n\r\n",
        "\u{1}\u{2}\u{3} garbage\r\n\r\n",
        "GET / HTTP/1.1\r\nBad Header: x\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\u{0}b\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ])
    func malformedRequestsAre400(text: String) throws {
        for chunkSize in [nil, 1] {
            let got = failures(parse(text, chunkSize: chunkSize))
            #expect(got.count == 1)
            let failure = try #require(got.first)
            #expect(failure.status.code == 400, "\(text.debugDescription) gave \(failure)")
            #expect(failure.response.closeConnection)
        }
    }

    @Test func inputAfterAFailureIsIgnored() {
        let parser = HTTPRequestParser()
        #expect(failures(parser.feed(Array("BAD\r\n\r\n".utf8))).count == 1)
        #expect(parser.isFinished)
        #expect(parser.feed(Array("GET / HTTP/1.1\r\n\r\n".utf8)).isEmpty)
    }

    @Test func unsupportedVersionsAre505() {
        for text in ["GET / HTTP/2.0\r\n\r\n", "GET / HTTP/1.2\r\n\r\n", "GET / HTTP/0.9\r\n\r\n", "GET /\r\n\r\n"] {
            #expect(failures(parse(text)) == [.versionNotSupported], "\(text.debugDescription)")
        }
        #expect(HTTPParseError.versionNotSupported.status.code == 505)
    }

    @Test func connectAndUpgradeAreRefused() {
        #expect(
            failures(parse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")) == [
                .upgradeNotSupported
            ])
        let websocket = "GET /ws HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
        #expect(failures(parse(websocket)) == [.upgradeNotSupported])
        #expect(HTTPParseError.upgradeNotSupported.status.code == 501)
        // An Upgrade field without `Connection: upgrade` is no upgrade request (RFC 9110 §7.8): served normally.
        #expect(requests(parse("GET / HTTP/1.1\r\nUpgrade: h2c\r\n\r\n")).count == 1)
    }

    @Test func keepAliveRules() throws {
        let http11 = try #require(requests(parse("GET / HTTP/1.1\r\n\r\n")).first)
        #expect(http11.keepAlive)
        let http11Close = try #require(requests(parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")).first)
        #expect(!http11Close.keepAlive)
        let http10 = try #require(requests(parse("GET / HTTP/1.0\r\n\r\n")).first)
        #expect(!http10.keepAlive)
        #expect(http10.version == (1, 0))
        let http10KeepAlive = try #require(requests(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")).first)
        #expect(http10KeepAlive.keepAlive)
    }

    @Test func nothingIsReadAfterARequestThatCloses() {
        let parser = HTTPRequestParser()
        let events = parser.feed(Array("GET /a HTTP/1.0\r\n\r\nGET /b HTTP/1.1\r\n\r\n".utf8))
        #expect(requests(events).map(\.target) == ["/a"])
        #expect(failures(events).isEmpty)
        #expect(parser.isFinished)
        #expect(parser.feed(Array("GET /c HTTP/1.1\r\n\r\n".utf8)).isEmpty)

        let afterClose = parse("GET /a HTTP/1.1\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\n\r\n", chunkSize: 1)
        #expect(requests(afterClose).map(\.target) == ["/a"])
        #expect(failures(afterClose).isEmpty)
    }

    @Test func expectContinue() {
        let withBody = "POST / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok"
        #expect(
            seen(parse(withBody, chunkSize: 1)) == [
                .started, .headers(expectsContinue: true), .request(method: "POST", target: "/", body: "ok"),
            ]
        )
        let chunked = "POST / HTTP/1.1\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        #expect(seen(parse(chunked)).contains(.headers(expectsContinue: true)))
        let noBody = "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n"
        #expect(seen(parse(noBody)).contains(.headers(expectsContinue: false)))
        let http10 = "POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok"
        #expect(seen(parse(http10)).contains(.headers(expectsContinue: false)))
        #expect(requests(parse(http10)).count == 1)
    }

    @Test func unknownExpectationIs417() {
        let text = "POST / HTTP/1.1\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\nok"
        #expect(seen(parse(text)) == [.started, .failure(.expectationFailed)])
        #expect(HTTPParseError.expectationFailed.status.code == 417)
        let mixed = "POST / HTTP/1.1\r\nExpect: 100-continue\r\nExpect: other\r\nContent-Length: 2\r\n\r\nok"
        #expect(failures(parse(mixed)) == [.expectationFailed])
    }

    @Test func failureResponsesCloseAndExplain() {
        let response = HTTPParseError.malformed(reason: "bad").response
        #expect(response.status.code == 400)
        #expect(response.closeConnection)
        #expect(String(decoding: response.body, as: UTF8.self).contains("bad"))
    }
}
