/// Writes an ``HTTPClientRequest`` as HTTP/1.1 bytes for one connection that closes after the response.
enum HTTPClientRequestEncoder {
    /// Encodes `request` for `url`: request line, the request's fields, then `Host`, `User-Agent` (when the
    /// request names none), `Content-Length` (when there is a body or the method usually carries one) and
    /// `Connection: close`, then the body.
    static func encode(
        _ request: HTTPClientRequest, url: HTTPClientURL, userAgent: String
    ) throws(HTTPClientError) -> [UInt8] {
        let method = request.method.description
        guard HTTPResponseEncoder.isToken(method) else {
            throw .invalidRequest(reason: "the method is not an HTTP token")
        }
        for field in request.headers {
            guard HTTPResponseEncoder.isToken(field.name) else {
                throw .invalidRequest(reason: "a header field name is not an HTTP token")
            }
            guard HTTPResponseEncoder.isFieldValue(field.value) else {
                throw .invalidRequest(reason: "the value of header field \(field.name) contains CR, LF or NUL")
            }
            for reserved in ["Content-Length", "Transfer-Encoding", "Connection"]
            where HTTPHeaders.namesEqual(field.name, reserved) {
                throw .invalidRequest(reason: "the client sets \(reserved) itself")
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(256 + request.body.count)
        out.append(contentsOf: "\(method) \(url.target) HTTP/1.1\r\n".utf8)
        if !request.headers.contains("Host") {
            append(name: "Host", value: url.hostField, to: &out)
        }
        if !request.headers.contains("User-Agent"), HTTPResponseEncoder.isFieldValue(userAgent), !userAgent.isEmpty {
            append(name: "User-Agent", value: userAgent, to: &out)
        }
        for field in request.headers {
            append(name: field.name, value: field.value, to: &out)
        }
        if !request.body.isEmpty || [.post, .put, .patch].contains(request.method) {
            out.append(contentsOf: "Content-Length: ".utf8)
            HTTPResponseEncoder.appendDecimal(request.body.count, to: &out)
            HTTPResponseEncoder.appendCRLF(to: &out)
        }
        out.append(contentsOf: "Connection: close\r\n\r\n".utf8)
        out.append(contentsOf: request.body)
        return out
    }

    private static func append(name: String, value: String, to out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: ": ".utf8)
        out.append(contentsOf: value.utf8)
        HTTPResponseEncoder.appendCRLF(to: &out)
    }
}
