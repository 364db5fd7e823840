/// What the generator keeps of a response: the status, the few header fields it acts on, and the body.
struct HTTPResponse: Sendable {
    /// The status code.
    var status = 0
    /// The `Location` field, if any.
    var location: String?
    /// Every `Set-Cookie` field, in order.
    var setCookies: [String] = []
    /// Whether the server said `Connection: close` (or spoke HTTP/1.0 without keep-alive).
    var closes = false
    /// The body, de-chunked.
    var body: [UInt8] = []

    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }
}
