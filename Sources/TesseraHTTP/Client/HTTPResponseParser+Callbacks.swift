internal import CHTTPParser

/// The C callbacks of http_parser for responses. Each reaches its ``HTTPResponseParser`` through `parser->data`, an
/// unretained reference: the Swift object owns the C parser, so it outlives every callback.
extension HTTPResponseParser {
    static func makeSettings() -> http_parser_settings {
        var settings = http_parser_settings()
        settings.on_message_begin = { parser in
            guard let owner = HTTPResponseParser.owner(of: parser) else { return HTTPResponseParser.stop }
            owner.beginMessage()
            return 0
        }
        settings.on_status = { parser, data, length in
            guard let owner = HTTPResponseParser.owner(of: parser), let data else { return HTTPResponseParser.stop }
            owner.reasonBytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
            return owner.countHeaderData(length)
        }
        settings.on_header_field = { parser, data, length in
            guard let owner = HTTPResponseParser.owner(of: parser), let data else { return HTTPResponseParser.stop }
            return owner.appendField(UnsafeRawBufferPointer(start: data, count: length))
        }
        settings.on_header_value = { parser, data, length in
            guard let owner = HTTPResponseParser.owner(of: parser), let data else { return HTTPResponseParser.stop }
            return owner.appendValue(UnsafeRawBufferPointer(start: data, count: length))
        }
        settings.on_headers_complete = { parser in
            guard let owner = HTTPResponseParser.owner(of: parser), let parser else { return HTTPResponseParser.stop }
            return owner.completeHead(parser)
        }
        settings.on_chunk_header = { parser in
            guard let owner = HTTPResponseParser.owner(of: parser), let parser else { return HTTPResponseParser.stop }
            return owner.checkBodyRoom(for: tessera_http_content_length(parser))
        }
        settings.on_body = { parser, data, length in
            guard let owner = HTTPResponseParser.owner(of: parser), let data else { return HTTPResponseParser.stop }
            return owner.appendBody(UnsafeRawBufferPointer(start: data, count: length))
        }
        settings.on_message_complete = { parser in
            guard let owner = HTTPResponseParser.owner(of: parser), let parser, owner.commitField() else {
                return HTTPResponseParser.stop
            }
            owner.completeMessage(parser)
            return 0
        }
        return settings
    }

    static func owner(of parser: UnsafeMutablePointer<http_parser>?) -> HTTPResponseParser? {
        guard let data = parser?.pointee.data else { return nil }
        return Unmanaged<HTTPResponseParser>.fromOpaque(data).takeUnretainedValue()
    }

    /// Resets the per-message state: a new response (or the final one after an interim 1xx) begins.
    func beginMessage() {
        headerBytes = 0
        inBody = false
        reasonBytes.removeAll(keepingCapacity: true)
        fields.reset()
        headers = HTTPHeaders()
        body = []
    }

    func appendField(_ data: UnsafeRawBufferPointer) -> Int32 {
        if fields.fieldIsComplete, !commitField() {
            return HTTPResponseParser.stop
        }
        fields.appendName(data)
        return countHeaderData(data.count)
    }

    func appendValue(_ data: UnsafeRawBufferPointer) -> Int32 {
        fields.appendValue(data)
        return countHeaderData(data.count)
    }

    /// Counts status line, header and trailer bytes, and stops the parser once they exceed the limit.
    func countHeaderData(_ count: Int) -> Int32 {
        headerBytes += count
        guard headerBytes <= maxHeaderBytes else {
            callbackFailure = .responseTooLarge(limit: maxHeaderBytes)
            return HTTPResponseParser.stop
        }
        return 0
    }

    /// Moves the field being read into ``headers`` once its value is complete; trailer fields are dropped.
    func commitField() -> Bool {
        do {
            if let field = try fields.take(), !inBody { headers.add(name: field.name, value: field.value) }
            return true
        } catch {
            callbackFailure = .malformedResponse(reason: "invalid header field name")
            return false
        }
    }

    /// Checks the complete head: the version, no protocol switch, and a declared length within the limit.
    /// Returns 1 (no body) for the response to a HEAD request, as http_parser expects.
    func completeHead(_ parser: UnsafeMutablePointer<http_parser>) -> Int32 {
        guard commitField() else { return HTTPResponseParser.stop }
        inBody = true
        guard tessera_http_major(parser) == 1 else {
            callbackFailure = .malformedResponse(reason: "only HTTP/1.x responses are supported")
            return HTTPResponseParser.stop
        }
        guard tessera_http_status(parser) != 101 else {
            callbackFailure = .malformedResponse(reason: "unexpected protocol switch (101)")
            return HTTPResponseParser.stop
        }
        guard expectsBody else { return 1 }
        if tessera_http_has_content_length(parser) != 0 {
            let declared = tessera_http_content_length(parser)
            guard declared <= UInt64(maxBodyBytes) else {
                callbackFailure = .responseTooLarge(limit: maxBodyBytes)
                return HTTPResponseParser.stop
            }
            body.reserveCapacity(Int(min(declared, 64 * 1024)))
        }
        return 0
    }

    /// Refuses a chunk that would take the body past the limit, before any of it is read.
    func checkBodyRoom(for size: UInt64) -> Int32 {
        guard size <= UInt64(maxBodyBytes - body.count) else {
            callbackFailure = .responseTooLarge(limit: maxBodyBytes)
            return HTTPResponseParser.stop
        }
        return 0
    }

    func appendBody(_ data: UnsafeRawBufferPointer) -> Int32 {
        guard data.count <= maxBodyBytes - body.count else {
            callbackFailure = .responseTooLarge(limit: maxBodyBytes)
            return HTTPResponseParser.stop
        }
        body.append(contentsOf: data)
        return 0
    }

    /// Completes the response, or skips an interim 1xx response and waits for the final one.
    func completeMessage(_ parser: UnsafeMutablePointer<http_parser>) {
        let code = Int(tessera_http_status(parser))
        guard code >= 200 else { return }
        let reason = HTTPRequestParser.trimmed(reasonBytes)
        let response = HTTPClientResponse(
            status: HTTPStatus(code: code, reasonPhrase: reason.isEmpty ? nil : reason), headers: headers, body: body
        )
        outcome = .complete(response)
        http_parser_pause(parser, 1)
    }
}
