internal import CHTTPParser

/// Turns the bytes of one connection into ``HTTPRequest``s with Node's http_parser, enforcing the limits of an
/// ``HTTPServerConfiguration``. Each request gets its id (``RequestID``) and the connection's peer address here, so
/// that nothing changes a request after it is read.
///
/// Feed it whatever the socket delivered, in order; each call returns the ``HTTPParserEvent``s those bytes completed.
/// A request may be split across any number of feeds, and one feed may hold many pipelined requests. After a
/// ``HTTPParserEvent/failure(_:)``, or after a request that does not keep the connection alive, the parser ignores
/// further input. Not thread-safe: one connection, one loop.
public final class HTTPRequestParser {
    /// Everything the parser changes while it reads, in one stored property: a feed takes one access to it and gives
    /// the C callbacks a pointer to it for the length of the call, so reading a request costs one exclusivity check
    /// instead of one for each field of state each callback touches (a `GET /healthz` made 22 of them).
    var state: State
    let settings: UnsafeMutablePointer<http_parser_settings>

    /// Creates a parser enforcing `configuration`'s header and body limits.
    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration()) {
        let parser = UnsafeMutablePointer<http_parser>.allocate(capacity: 1)
        http_parser_init(parser, HTTP_REQUEST)
        state = State(
            parser: parser, maxHeaderBytes: configuration.maxHeaderBytes, maxBodyBytes: configuration.maxBodyBytes)
        settings = UnsafeMutablePointer<http_parser_settings>.allocate(capacity: 1)
        settings.initialize(to: HTTPRequestParser.makeSettings())
    }

    deinit {
        state.parser.deallocate()
        settings.deinitialize(count: 1)
        settings.deallocate()
    }

    /// The peer's address, given to every request read (``HTTPRequest/remoteAddress``).
    public var remoteAddress: String? {
        get { state.remoteAddress }
        set { state.remoteAddress = newValue }
    }

    /// Whether the parser has stopped reading input, after a failure or a request that closes the connection.
    public var isFinished: Bool { state.stage == .finished }

    /// Parses `bytes` and returns the events they completed, in order.
    public func feed(_ bytes: UnsafeRawBufferPointer) -> [HTTPParserEvent] {
        var completed: [HTTPParserEvent] = []
        feed(bytes, into: &completed)
        return completed
    }

    /// Parses `bytes` and appends the events they completed to `completed`, in order: a connection passes the
    /// same buffer for every read, so that reporting a request's events allocates nothing.
    public func feed(_ bytes: UnsafeRawBufferPointer, into completed: inout [HTTPParserEvent]) {
        let settings = settings
        withUnsafeMutablePointer(to: &state) { state in
            // The callbacks append to the state's `events`: for this call, that is the caller's buffer.
            swap(&state.pointee.events, &completed)
            defer { swap(&state.pointee.events, &completed) }
            // The C parser reaches the state through `data` only while this call lasts.
            state.pointee.parser.pointee.data = UnsafeMutableRawPointer(state)
            defer { state.pointee.parser.pointee.data = nil }
            State.parse(bytes, state: state, settings: settings)
        }
    }

    /// Feeds a byte array; see ``feed(_:)``.
    public func feed(_ bytes: [UInt8]) -> [HTTPParserEvent] {
        bytes.withUnsafeBytes { feed($0) }
    }
}

extension HTTPRequestParser {
    /// The parser's state between feeds and its work inside one. Within a feed only the C parser's callbacks and
    /// ``parse(_:state:settings:)`` touch it, through the one pointer the feed holds.
    struct State {
        /// Where the parser stands within the current message.
        enum Stage {
            /// Between messages: no byte of the next request has arrived.
            case idle
            /// Inside the request line and header fields.
            case header
            /// Headers complete: reading the body (or the trailers of a chunked body).
            case body
            /// No more input is read: a failure happened or the last request closes the connection.
            case finished
        }

        /// Why the C parser was paused inside a callback, so ``parse(_:state:settings:)`` can take the byte position.
        enum PauseReason {
            case none
            case messageBegan
            case headersComplete
        }

        /// The C parser, owned by the ``HTTPRequestParser`` holding this state.
        let parser: UnsafeMutablePointer<http_parser>
        let maxHeaderBytes: Int
        let maxBodyBytes: Int

        var stage = Stage.idle
        var pauseReason = PauseReason.none
        /// A failure decided inside a callback, which then stops the C parser by returning non-zero.
        var callbackFailure: HTTPParseError?
        var events: [HTTPParserEvent] = []

        /// Header bytes of the current message that arrived in earlier feeds.
        var headerBytesBeforeThisFeed = 0
        /// Offset in the current feed where the current message's header section (or this feed) began.
        var headerStartInThisFeed = 0
        /// Bytes of the request target, field names and values seen so far: a lower bound of the header size that
        /// is checked inside callbacks, so one huge feed cannot make the parser buffer far past the limit.
        var headerDataBytes = 0
        /// Bytes of trailer fields of a chunked body seen so far.
        var trailerBytes = 0

        var targetBytes: [UInt8] = []
        var fields = HTTPHeaderFieldReader()
        var headers = HTTPHeaders()
        var body: [UInt8] = []
        var method = HTTPMethod.get
        var target = ""
        var keepAlive = true
        var remoteAddress: String?

        init(parser: UnsafeMutablePointer<http_parser>, maxHeaderBytes: Int, maxBodyBytes: Int) {
            self.parser = parser
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodyBytes = maxBodyBytes
        }

        /// Runs the C parser over `bytes`. Every access to the state goes through `state`, which the callbacks
        /// change between the C parser's returns.
        static func parse(
            _ bytes: UnsafeRawBufferPointer, state: UnsafeMutablePointer<State>,
            settings: UnsafeMutablePointer<http_parser_settings>
        ) {
            guard state.pointee.stage != .finished, let base = bytes.baseAddress, !bytes.isEmpty else { return }
            let parser = state.pointee.parser
            let start = base.assumingMemoryBound(to: CChar.self)
            var offset = 0
            state.pointee.headerStartInThisFeed = 0
            while offset < bytes.count, state.pointee.stage != .finished {
                let consumed = http_parser_execute(parser, settings, start + offset, bytes.count - offset)
                offset += consumed
                let errno = tessera_http_errno(parser)
                if errno == HPE_PAUSED {
                    http_parser_pause(parser, 0)
                    state.pointee.handlePause(at: offset)
                } else if errno != HPE_OK {
                    state.pointee.handleError(errno)
                } else if offset < bytes.count {
                    state.pointee.fail(.malformed(reason: "unexpected data after the message"))
                }
            }
            state.pointee.countHeaderBytes(ofFeed: bytes.count)
        }

        /// After a feed that ends inside a header section, counts its bytes toward the limit.
        mutating func countHeaderBytes(ofFeed count: Int) {
            guard stage == .header else { return }
            headerBytesBeforeThisFeed += count - headerStartInThisFeed
            if headerBytesBeforeThisFeed > maxHeaderBytes {
                fail(.headersTooLarge)
            }
        }

        /// Records the byte position of a pause requested by a callback and finishes that callback's work.
        mutating func handlePause(at offset: Int) {
            let reason = pauseReason
            pauseReason = .none
            switch reason {
            case .none:
                break
            case .messageBegan:
                // The begin callback consumed the message's first byte.
                headerStartInThisFeed = offset - 1
                headerBytesBeforeThisFeed = 0
                events.append(.requestStarted)
            case .headersComplete:
                // The parser stops on the header section's final LF without consuming it.
                let headerBytes = headerBytesBeforeThisFeed + offset + 1 - headerStartInThisFeed
                if headerBytes > maxHeaderBytes {
                    fail(.headersTooLarge)
                } else {
                    acceptHead()
                }
            }
        }

        mutating func handleError(_ errno: http_errno) {
            if let failure = callbackFailure {
                fail(failure)
            } else if errno == HPE_HEADER_OVERFLOW {
                fail(.headersTooLarge)
            } else {
                let description = http_errno_description(errno).map { String(cString: $0) } ?? "parse error"
                fail(.malformed(reason: description))
            }
        }

        mutating func fail(_ failure: HTTPParseError) {
            stage = .finished
            events.append(.failure(failure))
        }

        /// Resets the per-message state when a new message begins.
        mutating func beginMessage() {
            // A message yields three events (started, headers complete, request): room for them at once.
            events.reserveCapacity(events.count + 3)
            stage = .header
            targetBytes.removeAll(keepingCapacity: true)
            fields.reset()
            headers = HTTPHeaders(reservingCapacity: 12)
            body = []
            headerDataBytes = 0
            trailerBytes = 0
            callbackFailure = nil
        }

        /// Moves the field being read into ``headers`` once its value is complete (trailer fields are dropped).
        /// Returns false, with ``callbackFailure`` set, for a name that is not a token: http_parser lets spaces through.
        mutating func commitField() -> Bool {
            do {
                if let field = try fields.take(), stage == .header { headers.add(name: field.name, value: field.value) }
                return true
            } catch {
                callbackFailure = .malformed(reason: "invalid header field name")
                return false
            }
        }

        /// Checks the complete head (version, upgrade, Content-Length, Expect) and reports it.
        mutating func acceptHead() {
            let major = Int(tessera_http_major(parser))
            let minor = Int(tessera_http_minor(parser))
            guard major == 1, minor == 0 || minor == 1 else {
                return fail(.versionNotSupported)
            }
            guard tessera_http_upgrade(parser) == 0 else {
                return fail(.upgradeNotSupported)
            }
            let chunked = tessera_http_is_chunked(parser) != 0
            var declaredLength: UInt64 = 0
            if tessera_http_has_content_length(parser) != 0 {
                declaredLength = tessera_http_content_length(parser)
                guard declaredLength <= UInt64(maxBodyBytes) else {
                    return fail(.bodyTooLarge)
                }
            }
            var expectsContinue = false
            let expectations = headers.values(of: "Expect")
            if !expectations.isEmpty {
                let onlyContinue = expectations.allSatisfy { HTTPRequestParser.isContinueExpectation($0) }
                guard onlyContinue else { return fail(.expectationFailed) }
                // RFC 9110 §10.1.1: an HTTP/1.0 server ignores 100-continue.
                expectsContinue = minor == 1 && (chunked || declaredLength > 0)
            }
            // Nothing is reserved for the declared length: memory follows the bytes that actually arrive.
            method = HTTPRequestParser.method(code: tessera_http_method(parser))
            target = String(decoding: targetBytes, as: UTF8.self)
            keepAlive = http_should_keep_alive(parser) != 0
            stage = .body
            events.append(.headersComplete(expectsContinue: expectsContinue))
        }

        /// Reports the complete request and readies for the next one.
        mutating func completeMessage() {
            let request = HTTPRequest(
                method: method,
                target: target,
                version: (Int(tessera_http_major(parser)), Int(tessera_http_minor(parser))),
                headers: headers,
                body: body,
                keepAlive: keepAlive,
                remoteAddress: remoteAddress,
                id: RequestID.make()
            )
            headers = HTTPHeaders()
            body = []
            events.append(.request(request))
            stage = keepAlive ? .idle : .finished
        }
    }
}
