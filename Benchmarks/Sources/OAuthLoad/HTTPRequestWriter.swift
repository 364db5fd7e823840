/// Writes the bytes of minimal HTTP/1.1 requests: the request line, `Host`, the given fields, and for a body its
/// `Content-Type` and `Content-Length`. Keep-alive is HTTP/1.1's default, so no `Connection` field is sent.
struct HTTPRequestWriter: Sendable {
    /// The `Host` field's value, e.g. `127.0.0.1:8080`.
    let host: String

    /// A GET of `target` (path and query) with extra `fields` (`Name: value` lines without CRLF).
    func get(_ target: String, fields: [String] = []) -> [UInt8] {
        var head = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for field in fields { head += field + "\r\n" }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// A POST of `body` to `target` with `contentType` and extra `fields`.
    func post(_ target: String, contentType: String, body: String, fields: [String] = []) -> [UInt8] {
        let bodyBytes = Array(body.utf8)
        var head = "POST \(target) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: \(contentType)\r\n"
        head += "Content-Length: \(bodyBytes.count)\r\n"
        for field in fields { head += field + "\r\n" }
        head += "\r\n"
        var bytes = Array(head.utf8)
        bytes.append(contentsOf: bodyBytes)
        return bytes
    }
}
