internal import CHTTPParser

/// The C callbacks of http_parser. Each reaches its parser's ``HTTPRequestParser/State`` through `parser->data`,
/// which ``HTTPRequestParser/feed(_:into:)`` sets for the length of its call: callbacks only run inside it.
extension HTTPRequestParser {
    /// Returned by a callback to stop the C parser; the failure itself is kept in ``State/callbackFailure``.
    static let stop: Int32 = 1

    static func makeSettings() -> http_parser_settings {
        var settings = http_parser_settings()
        settings.on_message_begin = { parser in
            guard let state = HTTPRequestParser.state(of: parser) else { return HTTPRequestParser.stop }
            state.pointee.beginMessage()
            state.pointee.pauseReason = .messageBegan
            http_parser_pause(parser, 1)
            return 0
        }
        settings.on_url = { parser, data, length in
            guard let state = HTTPRequestParser.state(of: parser), let data else { return HTTPRequestParser.stop }
            return state.pointee.appendTarget(UnsafeRawBufferPointer(start: data, count: length))
        }
        settings.on_header_field = { parser, data, length in
            guard let state = HTTPRequestParser.state(of: parser), let data else { return HTTPRequestParser.stop }
            return state.pointee.appendField(UnsafeRawBufferPointer(start: data, count: length))
        }
        settings.on_header_value = { parser, data, length in
            guard let state = HTTPRequestParser.state(of: parser), let data else { return HTTPRequestParser.stop }
            return state.pointee.appendValue(UnsafeRawBufferPointer(start: data, count: length))
        }
        settings.on_headers_complete = { parser in
            guard let state = HTTPRequestParser.state(of: parser), state.pointee.commitField() else {
                return HTTPRequestParser.stop
            }
            state.pointee.pauseReason = .headersComplete
            http_parser_pause(parser, 1)
            return 0
        }
        settings.on_chunk_header = { parser in
            guard let state = HTTPRequestParser.state(of: parser), let parser else { return HTTPRequestParser.stop }
            return state.pointee.checkChunk(size: tessera_http_content_length(parser))
        }
        settings.on_body = { parser, data, length in
            guard let state = HTTPRequestParser.state(of: parser), let data else { return HTTPRequestParser.stop }
            return state.pointee.appendBody(UnsafeRawBufferPointer(start: data, count: length))
        }
        settings.on_message_complete = { parser in
            guard let state = HTTPRequestParser.state(of: parser), state.pointee.commitField() else {
                return HTTPRequestParser.stop
            }
            state.pointee.completeMessage()
            if state.pointee.stage == .finished {
                // The connection closes after this request: parse nothing that follows it.
                http_parser_pause(parser, 1)
            }
            return 0
        }
        return settings
    }

    static func state(of parser: UnsafeMutablePointer<http_parser>?) -> UnsafeMutablePointer<State>? {
        parser?.pointee.data?.assumingMemoryBound(to: State.self)
    }
}

extension HTTPRequestParser.State {
    mutating func appendTarget(_ data: UnsafeRawBufferPointer) -> Int32 {
        targetBytes.append(contentsOf: data)
        return countHeaderData(data.count)
    }

    mutating func appendField(_ data: UnsafeRawBufferPointer) -> Int32 {
        if fields.fieldIsComplete, !commitField() {
            return HTTPRequestParser.stop
        }
        fields.appendName(data)
        return countHeaderData(data.count)
    }

    mutating func appendValue(_ data: UnsafeRawBufferPointer) -> Int32 {
        fields.appendValue(data)
        return countHeaderData(data.count)
    }

    /// Counts header or trailer bytes and stops the parser once they certainly exceed the limit.
    mutating func countHeaderData(_ count: Int) -> Int32 {
        if stage == .header {
            headerDataBytes += count
            guard headerDataBytes <= maxHeaderBytes else {
                callbackFailure = .headersTooLarge
                return HTTPRequestParser.stop
            }
        } else {
            trailerBytes += count
            guard trailerBytes <= maxHeaderBytes else {
                callbackFailure = .headersTooLarge
                return HTTPRequestParser.stop
            }
        }
        return 0
    }

    /// Refuses a chunk that would take the body past the limit, before any of it is read.
    mutating func checkChunk(size: UInt64) -> Int32 {
        guard size <= UInt64(maxBodyBytes - body.count) else {
            callbackFailure = .bodyTooLarge
            return HTTPRequestParser.stop
        }
        return 0
    }

    mutating func appendBody(_ data: UnsafeRawBufferPointer) -> Int32 {
        guard data.count <= maxBodyBytes - body.count else {
            callbackFailure = .bodyTooLarge
            return HTTPRequestParser.stop
        }
        body.append(contentsOf: data)
        return 0
    }
}
