/// Reads HTTP/1.1 responses from a keep-alive connection: status line, header fields, and a body framed by
/// `Content-Length` or chunked transfer coding. Bytes past the end of one response stay buffered for the next.
/// Not thread-safe: one connection, one loop.
struct HTTPResponseReader {
    /// Why bytes are not a response.
    struct Malformed: Error, CustomStringConvertible {
        /// What was wrong.
        var description: String
    }

    private static let largestHead = 64 * 1024
    private static let largestBody = 16 * 1024 * 1024

    private var buffer: [UInt8] = []
    private var start = 0

    /// Appends bytes that arrived.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Whether bytes of an unfinished response are buffered.
    var hasPartialResponse: Bool { start < buffer.count }

    /// Forgets everything buffered (after the connection was replaced).
    mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        start = 0
    }

    /// The next complete response, or nil when more bytes are needed.
    mutating func next() throws(Malformed) -> HTTPResponse? {
        guard let headEnd = findHeadEnd() else {
            if buffer.count - start > Self.largestHead { throw Malformed(description: "header section too large") }
            return nil
        }
        var response = HTTPResponse()
        var contentLength: Int?
        var chunked = false
        var lineStart = start
        var firstLine = true
        while lineStart < headEnd {
            var lineEnd = lineStart
            while buffer[lineEnd] != 13 { lineEnd += 1 }
            if firstLine {
                response.status = try parseStatus(lineStart, lineEnd)
                response.closes = buffer[lineStart + 7] == UInt8(ascii: "0")
                firstLine = false
            } else if let colon = buffer[lineStart..<lineEnd].firstIndex(of: UInt8(ascii: ":")),
                let field = Self.field(buffer[lineStart..<colon])
            {
                // Only the fields the generator acts on become strings; the rest are skipped unread.
                var valueStart = colon + 1
                while valueStart < lineEnd, buffer[valueStart] == 32 || buffer[valueStart] == 9 { valueStart += 1 }
                let value = String(decoding: buffer[valueStart..<lineEnd], as: UTF8.self)
                switch field {
                case .contentLength:
                    guard let length = Int(value), length >= 0, length <= Self.largestBody else {
                        throw Malformed(description: "bad Content-Length '\(value)'")
                    }
                    contentLength = length
                case .transferEncoding: chunked = value.lowercased().contains("chunked")
                case .location: response.location = value
                case .setCookie: response.setCookies.append(value)
                case .connection:
                    let lowered = value.lowercased()
                    if lowered.contains("close") { response.closes = true }
                    if lowered.contains("keep-alive") { response.closes = false }
                }
            }
            lineStart = lineEnd + 2
        }
        let bodyStart = headEnd + 4
        if chunked {
            guard let (body, end) = try readChunks(from: bodyStart) else { return nil }
            response.body = body
            start = end
        } else {
            let length = contentLength ?? 0
            guard buffer.count - bodyStart >= length else { return nil }
            response.body = Array(buffer[bodyStart..<bodyStart + length])
            start = bodyStart + length
        }
        return response
    }

    /// The header fields the reader acts on.
    private enum Field: CaseIterable {
        case contentLength, transferEncoding, location, setCookie, connection

        /// The field name in lowercase bytes.
        var name: [UInt8] {
            switch self {
            case .contentLength: Array("content-length".utf8)
            case .transferEncoding: Array("transfer-encoding".utf8)
            case .location: Array("location".utf8)
            case .setCookie: Array("set-cookie".utf8)
            case .connection: Array("connection".utf8)
            }
        }
    }

    private static let fieldNames = Field.allCases.map { ($0, $0.name) }

    /// The field `name` (compared without regard to ASCII case), or nil for a field the reader skips.
    private static func field(_ name: ArraySlice<UInt8>) -> Field? {
        for (field, expected) in fieldNames where expected.count == name.count {
            if zip(name, expected).allSatisfy({ ($0 | 0x20) == $1 || $0 == $1 }) { return field }
        }
        return nil
    }

    private func findHeadEnd() -> Int? {
        var index = start
        let limit = buffer.count - 3
        while index < limit {
            if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    private func parseStatus(_ lineStart: Int, _ lineEnd: Int) throws(Malformed) -> Int {
        let line = buffer[lineStart..<lineEnd]
        guard line.count >= 12, line.starts(with: "HTTP/1.".utf8) else {
            throw Malformed(description: "not an HTTP/1.x status line")
        }
        var status = 0
        for offset in 9..<12 {
            let digit = Int(buffer[lineStart + offset]) - 48
            guard (0...9).contains(digit) else { throw Malformed(description: "bad status code") }
            status = status * 10 + digit
        }
        return status
    }

    /// The de-chunked body and the index after the last chunk, or nil when the body is not complete yet.
    private func readChunks(from bodyStart: Int) throws(Malformed) -> ([UInt8], Int)? {
        var body: [UInt8] = []
        var position = bodyStart
        while true {
            guard let lineEnd = lineEnd(from: position) else { return nil }
            var size = 0
            for byte in buffer[position..<lineEnd] {
                guard let digit = hexDigit(byte) else { break }
                size = size * 16 + digit
                guard size <= Self.largestBody else { throw Malformed(description: "chunk too large") }
            }
            position = lineEnd + 2
            if size == 0 {
                while true {
                    guard let trailerEnd = self.lineEnd(from: position) else { return nil }
                    let empty = trailerEnd == position
                    position = trailerEnd + 2
                    if empty { return (body, position) }
                }
            }
            guard buffer.count >= position + size + 2 else { return nil }
            body.append(contentsOf: buffer[position..<position + size])
            position += size + 2
        }
    }

    private func lineEnd(from position: Int) -> Int? {
        var index = position
        while index + 1 < buffer.count {
            if buffer[index] == 13 && buffer[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }

    private func hexDigit(_ byte: UInt8) -> Int? {
        switch byte {
        case 48...57: Int(byte) - 48
        case 65...70: Int(byte) - 55
        case 97...102: Int(byte) - 87
        default: nil
        }
    }
}
