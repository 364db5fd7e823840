internal import CHTTPParser

/// Small pure helpers that turn the raw pieces of a request head into values.
extension HTTPRequestParser {
    /// The method for http_parser's method code; the common ones without allocating.
    static func method(code: UInt32) -> HTTPMethod {
        switch code {
        case HTTP_GET.rawValue: .get
        case HTTP_HEAD.rawValue: .head
        case HTTP_POST.rawValue: .post
        case HTTP_PUT.rawValue: .put
        case HTTP_DELETE.rawValue: .delete
        case HTTP_OPTIONS.rawValue: .options
        case HTTP_PATCH.rawValue: .patch
        default: HTTPMethod(http_method_str(http_method(rawValue: code)).map { String(cString: $0) } ?? "")
        }
    }

    /// A field value as text without leading or trailing spaces and tabs (RFC 9110 §5.5).
    static func trimmed(_ bytes: [UInt8]) -> String {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") {
            start += 1
        }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") {
            end -= 1
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Whether an `Expect` value is `100-continue` (case-insensitive, RFC 9110 §10.1.1).
    static func isContinueExpectation(_ value: String) -> Bool {
        value.lowercased() == "100-continue"
    }
}
