/// Writes an ``HTTPResponse`` as HTTP/1.1 bytes: status line, the response's fields, then `Date`, `Content-Length`
/// and `Connection` as the ``HTTPResponseContext`` requires, then the body.
///
/// The response's own `Content-Length`, `Transfer-Encoding` and `Connection` fields are dropped, since framing is
/// the server's job; a `Date` field of the response replaces the server's.
public enum HTTPResponseEncoder {
    /// The interim response that tells a client waiting on `Expect: 100-continue` to send its body.
    public static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Encodes `response` for the request described by `context`, with `date` (an IMF-fixdate) as its `Date`.
    public static func encode(
        _ response: HTTPResponse, context: HTTPResponseContext, date: String
    ) throws(HTTPResponseEncodingError) -> [UInt8] {
        let status = response.status
        guard (100...999).contains(status.code), isFieldValue(status.reasonPhrase) else {
            throw .invalidStatus(code: status.code)
        }
        let bodyAllowed = !(status.code < 200 || status.code == 204 || status.code == 304)
        var headerBytes = 0
        for field in response.headers {
            headerBytes += field.name.utf8.count + field.value.utf8.count + 4
        }
        let bodyBytes = bodyAllowed && !context.isHeadRequest ? response.body.count : 0
        var out: [UInt8] = []
        out.reserveCapacity(128 + status.reasonPhrase.utf8.count + headerBytes + bodyBytes)

        appendASCII("HTTP/1.1 ", to: &out)
        appendDecimal(status.code, to: &out)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: status.reasonPhrase.utf8)
        appendCRLF(to: &out)

        var hasDate = false
        for field in response.headers {
            if HTTPHeaders.namesEqual(field.name, "Content-Length")
                || HTTPHeaders.namesEqual(field.name, "Transfer-Encoding")
                || HTTPHeaders.namesEqual(field.name, "Connection")
            {
                guard isToken(field.name), isFieldValue(field.value) else {
                    throw .invalidHeaderField(name: field.name)
                }
                continue
            }
            guard appendField(name: field.name, value: field.value, to: &out) else {
                throw .invalidHeaderField(name: field.name)
            }
            if HTTPHeaders.namesEqual(field.name, "Date") {
                hasDate = true
            }
        }
        if !hasDate {
            appendASCII("Date: ", to: &out)
            out.append(contentsOf: date.utf8)
            appendCRLF(to: &out)
        }
        if bodyAllowed {
            appendASCII("Content-Length: ", to: &out)
            appendDecimal(response.body.count, to: &out)
            appendCRLF(to: &out)
        }
        if context.closeConnection {
            appendASCII("Connection: close\r\n", to: &out)
        } else if context.isHTTP10 {
            appendASCII("Connection: keep-alive\r\n", to: &out)
        }
        appendCRLF(to: &out)
        if bodyBytes > 0 {
            out.append(contentsOf: response.body)
        }
        return out
    }

    /// Appends `name: value` and CRLF when `name` is a token and `value` a field value, checking and copying each
    /// one's contiguous UTF-8 in one pass; appends nothing and returns false otherwise.
    static func appendField(name: String, value: String, to out: inout [UInt8]) -> Bool {
        var name = name
        var value = value
        return name.withUTF8 { name in
            value.withUTF8 { value in
                guard !name.isEmpty, name.allSatisfy(isTokenByte), isFieldValue(value) else { return false }
                out.append(contentsOf: name)
                out.append(UInt8(ascii: ":"))
                out.append(UInt8(ascii: " "))
                out.append(contentsOf: value)
                appendCRLF(to: &out)
                return true
            }
        }
    }

    /// Appends the bytes of an ASCII literal.
    static func appendASCII(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    static func appendCRLF(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\r"))
        out.append(UInt8(ascii: "\n"))
    }

    /// Appends the decimal digits of a non-negative number.
    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        guard value >= 10 else {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: max(value, 0)))
            return
        }
        appendDecimal(value / 10, to: &out)
        out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10))
    }

    /// Whether `name` is a non-empty RFC 9110 token.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.allUTF8Bytes(satisfy: isTokenByte)
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
            UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Whether `value` can follow a field name without ending the line: no CR, LF or NUL.
    static func isFieldValue(_ value: String) -> Bool {
        var value = value
        return value.withUTF8(isFieldValue)
    }

    /// Whether `value`'s bytes can follow a field name without ending the line: no CR, LF or NUL.
    static func isFieldValue(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        // One comparison for nearly every byte: the three refused are all below 14.
        !value.contains {
            $0 <= UInt8(ascii: "\r") && ($0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") || $0 == 0)
        }
    }
}
