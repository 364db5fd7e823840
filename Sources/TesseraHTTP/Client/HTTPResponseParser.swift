internal import CHTTPParser

/// Reads one HTTP/1.x response from the bytes of a client connection with http_parser in response mode, enforcing
/// an ``HTTPClientConfiguration``'s limits.
///
/// Feed it what the connection delivers, in order, then ``finish()`` when the connection ends: a body delimited by
/// the end of the connection completes only then. Content-Length and chunked bodies complete as soon as their last
/// byte arrives. Interim 1xx responses are skipped. After the first non-``Outcome/incomplete`` outcome the parser
/// ignores further input and keeps answering with that outcome. Not thread-safe: one exchange, one loop.
final class HTTPResponseParser {
    /// Where reading the response stands.
    enum Outcome {
        /// More bytes (or the end of the connection) are needed.
        case incomplete
        /// The whole response arrived.
        case complete(HTTPClientResponse)
        /// The bytes are not a valid response, or exceed a limit.
        case failed(HTTPClientError)
    }

    /// What a callback returns to stop the C parser with an error; the failure is kept in ``callbackFailure``.
    static let stop: Int32 = -1

    let maxHeaderBytes: Int
    let maxBodyBytes: Int
    /// False for the response to a HEAD request, which has no body whatever its framing fields say.
    let expectsBody: Bool
    let parser: UnsafeMutablePointer<http_parser>
    let settings: UnsafeMutablePointer<http_parser_settings>

    var outcome = Outcome.incomplete
    /// A failure decided inside a callback, which then stops the C parser.
    var callbackFailure: HTTPClientError?
    /// Whether any byte of a response arrived.
    var receivedBytes = false
    /// Status line and header bytes of the current message seen so far.
    var headerBytes = 0
    /// Whether the current message's header section is complete (later field callbacks are trailers).
    var inBody = false
    var reasonBytes: [UInt8] = []
    var fields = HTTPHeaderFieldReader()
    var headers = HTTPHeaders()
    var body: [UInt8] = []

    /// Creates a parser for the response to a request; `expectsBody` is false when the request was a HEAD.
    init(configuration: HTTPClientConfiguration, expectsBody: Bool) {
        maxHeaderBytes = configuration.maxResponseHeaderBytes
        maxBodyBytes = configuration.maxResponseBodyBytes
        self.expectsBody = expectsBody
        parser = UnsafeMutablePointer<http_parser>.allocate(capacity: 1)
        settings = UnsafeMutablePointer<http_parser_settings>.allocate(capacity: 1)
        http_parser_init(parser, HTTP_RESPONSE)
        settings.initialize(to: HTTPResponseParser.makeSettings())
        parser.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        parser.deallocate()
        settings.deinitialize(count: 1)
        settings.deallocate()
    }

    /// Parses the next bytes of the connection.
    func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard case .incomplete = outcome, let base = bytes.baseAddress, !bytes.isEmpty else { return outcome }
        receivedBytes = true
        let consumed = http_parser_execute(parser, settings, base.assumingMemoryBound(to: CChar.self), bytes.count)
        settle(consumed: consumed, expected: bytes.count)
        return outcome
    }

    /// Feeds a byte array; see ``feed(_:)``.
    func feed(_ bytes: [UInt8]) -> Outcome {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Tells the parser the connection ended: completes a body delimited by the end of the connection, and fails
    /// a response that is still incomplete.
    func finish() -> Outcome {
        guard case .incomplete = outcome else { return outcome }
        guard receivedBytes else {
            outcome = .failed(.malformedResponse(reason: "the connection closed before a response arrived"))
            return outcome
        }
        _ = http_parser_execute(parser, settings, nil, 0)
        settle(consumed: 0, expected: 0)
        if case .incomplete = outcome {
            outcome = .failed(.malformedResponse(reason: "the connection closed before the response was complete"))
        }
        return outcome
    }

    /// Turns the C parser's state after a call into an outcome.
    private func settle(consumed: Int, expected: Int) {
        guard case .incomplete = outcome else { return }
        let errno = tessera_http_errno(parser)
        if errno == HPE_PAUSED || errno == HPE_OK {
            if consumed < expected {
                outcome = .failed(.malformedResponse(reason: "unexpected data after the response"))
            }
            return
        }
        if let failure = callbackFailure {
            outcome = .failed(failure)
        } else if errno == HPE_HEADER_OVERFLOW {
            outcome = .failed(.responseTooLarge(limit: maxHeaderBytes))
        } else if errno == HPE_INVALID_EOF_STATE {
            outcome = .failed(.malformedResponse(reason: "the connection closed before the response was complete"))
        } else {
            let description = http_errno_description(errno).map { String(cString: $0) } ?? "parse error"
            outcome = .failed(.malformedResponse(reason: description))
        }
    }
}
