/// The request methods Tessera routes on. Anything else the parser accepts is carried as `.other`.
public enum HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    case get, head, post, put, delete, options, patch
    case other(String)

    /// Creates a method from its token as it appears on the request line (`GET`, `POST`, …).
    public init(_ token: String) {
        switch token {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        case "PUT": self = .put
        case "DELETE": self = .delete
        case "OPTIONS": self = .options
        case "PATCH": self = .patch
        default: self = .other(token)
        }
    }

    /// The method's token as written on the request line.
    public var description: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .patch: "PATCH"
        case .other(let token): token
        }
    }
}

/// An HTTP status code with its reason phrase.
public struct HTTPStatus: Hashable, Sendable {
    /// The three-digit code.
    public var code: Int
    /// The reason phrase written on the status line.
    public var reasonPhrase: String

    /// Creates a status; the phrase defaults to the standard one for well-known codes.
    public init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        self.reasonPhrase = reasonPhrase ?? HTTPStatus.standardPhrase(for: code)
    }

    public static let `continue` = HTTPStatus(code: 100)
    public static let ok = HTTPStatus(code: 200)
    public static let noContent = HTTPStatus(code: 204)
    public static let found = HTTPStatus(code: 302)
    public static let seeOther = HTTPStatus(code: 303)
    public static let badRequest = HTTPStatus(code: 400)
    public static let unauthorized = HTTPStatus(code: 401)
    public static let forbidden = HTTPStatus(code: 403)
    public static let notFound = HTTPStatus(code: 404)
    public static let methodNotAllowed = HTTPStatus(code: 405)
    public static let requestTimeout = HTTPStatus(code: 408)
    public static let payloadTooLarge = HTTPStatus(code: 413)
    public static let unsupportedMediaType = HTTPStatus(code: 415)
    public static let expectationFailed = HTTPStatus(code: 417)
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    public static let internalServerError = HTTPStatus(code: 500)
    public static let notImplemented = HTTPStatus(code: 501)
    public static let serviceUnavailable = HTTPStatus(code: 503)
    public static let httpVersionNotSupported = HTTPStatus(code: 505)

    /// The reason phrase RFC 9110 gives a code, or "Unknown" for codes it does not name.
    public static func standardPhrase(for code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Unknown"
        }
    }
}

/// An ordered list of header fields with case-insensitive lookup (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in the order they were received or added.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates an empty header list.
    public init() { fields = [] }

    /// Creates an empty header list with room for `capacity` fields, so that adding them allocates once.
    init(reservingCapacity capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// Creates a header list from name-value pairs, keeping their order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// Makes room for `count` more fields, so that adding them allocates at most once.
    public mutating func reserveCapacity(forAdding count: Int) {
        fields.reserveCapacity(fields.count + count)
    }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field of this name with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append((name: name, value: value))
    }

    /// Removes every field of this name.
    public mutating func remove(name: String) {
        fields.removeAll { HTTPHeaders.namesEqual($0.name, name) }
    }

    /// The first value of the named field, if present.
    public subscript(name: String) -> String? {
        fields.first { HTTPHeaders.namesEqual($0.name, name) }?.value
    }

    /// Every value of the named field, in order.
    public func values(of name: String) -> [String] {
        fields.filter { HTTPHeaders.namesEqual($0.name, name) }.map(\.value)
    }

    /// Whether a field of this name is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// ASCII case-insensitive comparison of two field names. A look-up compares a name with every field of the
    /// request (a token request makes about 27 comparisons), so the bytes are compared in place.
    static func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { lhs in
            rhs.withUTF8 { rhs in lhs.indices.allSatisfy { bytesEqualIgnoringCase(lhs[$0], rhs[$0]) } }
        }
    }

    /// Whether two bytes are equal, or are one ASCII letter in two cases.
    private static func bytesEqualIgnoringCase(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || ((a | 0x20) == (b | 0x20) && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
    }
}

/// One parsed HTTP/1.x request, with its whole body.
///
/// A value with its members in one shared box, copied when a copy is changed: a request passes from the parser
/// through the connection's state machine to its handler's task, and copying its eight reference-counted members at
/// each step was a tenth of the server's reference counting under the token cycle.
public struct HTTPRequest: Sendable {
    /// The members. Changed only through a request that holds the only reference (``unique()``), so no two
    /// threads ever see it change.
    private final class Storage: @unchecked Sendable {
        var method: HTTPMethod
        var target: String
        var path: String
        var query: String?
        var version: (major: Int, minor: Int)
        var headers: HTTPHeaders
        var body: [UInt8]
        var keepAlive: Bool
        var remoteAddress: String?
        var id: String

        init(
            method: HTTPMethod, target: String, path: String, query: String?, version: (major: Int, minor: Int),
            headers: HTTPHeaders, body: [UInt8], keepAlive: Bool, remoteAddress: String?, id: String
        ) {
            self.method = method
            self.target = target
            self.path = path
            self.query = query
            self.version = version
            self.headers = headers
            self.body = body
            self.keepAlive = keepAlive
            self.remoteAddress = remoteAddress
            self.id = id
        }

        func copy() -> Storage {
            Storage(
                method: method, target: target, path: path, query: query, version: version, headers: headers,
                body: body, keepAlive: keepAlive, remoteAddress: remoteAddress, id: id)
        }
    }

    private var storage: Storage

    /// The storage, copied first unless this request holds the only reference to it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The request method.
    public var method: HTTPMethod {
        get { storage.method }
        set { unique().method = newValue }
    }
    /// The request target exactly as received (`/rpc?x=1`).
    public var target: String {
        get { storage.target }
        set { unique().target = newValue }
    }
    /// The path part of the target, still percent-encoded.
    public var path: String {
        get { storage.path }
        set { unique().path = newValue }
    }
    /// The query part of the target without the `?`, still percent-encoded; nil when absent.
    public var query: String? {
        get { storage.query }
        set { unique().query = newValue }
    }
    /// HTTP version as (major, minor).
    public var version: (major: Int, minor: Int) {
        get { storage.version }
        set { unique().version = newValue }
    }
    /// The header fields in order.
    public var headers: HTTPHeaders {
        get { storage.headers }
        set { unique().headers = newValue }
    }
    /// The request body (already de-chunked).
    public var body: [UInt8] {
        get { storage.body }
        set { unique().body = newValue }
    }
    /// Whether the client asked to keep the connection open after this request.
    public var keepAlive: Bool {
        get { storage.keepAlive }
        set { unique().keepAlive = newValue }
    }
    /// The peer address of the socket as `host:port` text, when known.
    public var remoteAddress: String? {
        get { storage.remoteAddress }
        set { unique().remoteAddress = newValue }
    }
    /// The request's id (``RequestID``), set by the server before the request is routed: the `request-id` of
    /// every log line written while it is handled (``RequestScope``) and of the audit log. Empty until then.
    public var id: String {
        get { storage.id }
        set { unique().id = newValue }
    }

    /// Creates a request; `path` and `query` are split from `target`.
    public init(
        method: HTTPMethod, target: String, version: (major: Int, minor: Int) = (1, 1),
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], keepAlive: Bool = true, remoteAddress: String? = nil,
        id: String = ""
    ) {
        let path: String
        let query: String?
        // Found among the UTF-8 bytes, not the characters: `?` is ASCII, so its index is a character boundary.
        if let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = String(target[..<mark])
            query = String(target[target.index(after: mark)...])
        } else {
            path = target
            query = nil
        }
        storage = Storage(
            method: method, target: target, path: path, query: query, version: version, headers: headers, body: body,
            keepAlive: keepAlive, remoteAddress: remoteAddress, id: id)
    }
}

/// A complete response. The server adds `Date`, `Content-Length` and `Connection` when writing it.
public struct HTTPResponse: Sendable {
    /// The status line's code and phrase.
    public var status: HTTPStatus
    /// Header fields to send, in order.
    public var headers: HTTPHeaders
    /// The body bytes (omitted on the wire for HEAD requests, 1xx, 204 and 304).
    public var body: [UInt8]
    /// When true the connection is closed after this response, whatever the request asked.
    public var closeConnection: Bool

    /// Creates a response.
    public init(
        status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], closeConnection: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closeConnection = closeConnection
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }
}
