#if canImport(Glibc)
import Glibc
#endif

/// An absolute `http://` or `https://` URL taken apart for an ``HTTPClient``: scheme, host, port and request target.
///
/// The host is a DNS name (lower-cased), an IPv4 address, or an IPv6 address written in brackets. User information
/// (`user:password@`) is refused rather than silently sent or dropped; a fragment is dropped, as browsers do. The
/// path and query must already be percent-encoded: spaces, control characters and non-ASCII bytes are refused.
public struct HTTPClientURL: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public enum Scheme: String, Sendable, Hashable {
        case http
        case https

        /// The port used when the URL names none.
        public var defaultPort: Int { self == .http ? 80 : 443 }
    }

    /// The scheme.
    public let scheme: Scheme
    /// The host: a lower-cased DNS name, an IPv4 address, or an IPv6 address without its brackets.
    public let host: String
    /// Whether ``host`` is a numeric IPv4 or IPv6 address rather than a name.
    public let hostIsIPAddress: Bool
    /// The port, explicit or the scheme's default.
    public let port: Int
    /// The path and query as sent on the request line (`/` when the URL has no path).
    public let target: String

    /// Parses `text`; throws ``HTTPClientError/invalidURL(reason:)`` saying what is wrong. The error does not
    /// repeat the URL, whose query may carry a secret.
    public init(parsing text: String) throws(HTTPClientError) {
        let withoutFragment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let separator = withoutFragment.firstRange(of: "://") else {
            throw .invalidURL(reason: "not an absolute URL (expected http:// or https://)")
        }
        guard let scheme = Scheme(rawValue: withoutFragment[..<separator.lowerBound].lowercased()) else {
            throw .invalidURL(reason: "the scheme must be http or https")
        }
        let rest = withoutFragment[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let pathAndQuery = rest[authorityEnd...]
        guard !authority.contains("@") else {
            throw .invalidURL(reason: "user information in the URL is not supported")
        }
        let (host, isIPAddress, port) = try Self.parseAuthority(authority, defaultPort: scheme.defaultPort)
        guard pathAndQuery.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidURL(reason: "the path and query must be percent-encoded (no spaces or control characters)")
        }
        self.scheme = scheme
        self.host = host
        self.hostIsIPAddress = isIPAddress
        self.port = port
        if pathAndQuery.isEmpty {
            target = "/"
        } else if pathAndQuery.hasPrefix("?") {
            target = "/" + pathAndQuery
        } else {
            target = String(pathAndQuery)
        }
    }

    /// The value of the `Host` field: the host (IPv6 in brackets) with the port when it is not the default.
    public var hostField: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port == scheme.defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    /// `scheme://host[:port]` without the path: safe to show in logs and errors.
    public var origin: String { "\(scheme.rawValue)://\(hostField)" }

    /// The whole URL, normalized.
    public var description: String { origin + target }

    /// Splits `host[:port]` or `[ipv6][:port]` and checks both parts.
    private static func parseAuthority(
        _ authority: Substring, defaultPort: Int
    ) throws(HTTPClientError) -> (host: String, isIPAddress: Bool, port: Int) {
        var hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .invalidURL(reason: "an IPv6 address lacks its closing bracket")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL(reason: "unexpected text after the IPv6 address") }
                portPart = after.dropFirst()
            }
            guard isAddress(hostPart, family: AF_INET6) else {
                throw .invalidURL(reason: "the bracketed host is not an IPv6 address")
            }
            return (hostPart.lowercased(), true, try parsePort(portPart, defaultPort: defaultPort))
        }
        if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        } else {
            hostPart = authority
        }
        guard !hostPart.isEmpty else { throw .invalidURL(reason: "the host is missing") }
        guard !hostPart.contains(":") else {
            throw .invalidURL(reason: "an IPv6 address must be written in brackets")
        }
        let port = try parsePort(portPart, defaultPort: defaultPort)
        if hostPart.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            guard isAddress(hostPart, family: AF_INET) else {
                throw .invalidURL(reason: "the host is not a valid IPv4 address")
            }
            return (String(hostPart), true, port)
        }
        try checkHostName(hostPart)
        return (hostPart.lowercased(), false, port)
    }

    private static func parsePort(_ text: Substring?, defaultPort: Int) throws(HTTPClientError) -> Int {
        guard let text else { return defaultPort }
        guard !text.isEmpty, text.count <= 5, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let port = Int(text), (1...65535).contains(port)
        else {
            throw .invalidURL(reason: "the port must be a number from 1 to 65535")
        }
        return port
    }

    /// Accepts DNS names: dot-separated labels of ASCII letters, digits, `-` and `_`, each 1–63 bytes, 253 in all.
    private static func checkHostName(_ name: Substring) throws(HTTPClientError) {
        let trimmed = name.hasSuffix(".") ? name.dropLast() : name
        guard trimmed.utf8.count <= 253 else { throw .invalidURL(reason: "the host name is too long") }
        for label in trimmed.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= 63 else {
                throw .invalidURL(reason: "the host name has an empty or over-long label")
            }
            let valid = label.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default:
                    false
                }
            }
            guard valid else {
                throw .invalidURL(reason: "the host name may hold only ASCII letters, digits, '-', '_' and '.'")
            }
        }
    }

    /// Whether `text` is a numeric address of `family` (`AF_INET` or `AF_INET6`).
    private static func isAddress(_ text: Substring, family: Int32) -> Bool {
        var storage = in6_addr()
        return String(text).withCString { inet_pton(family, $0, &storage) } == 1
    }
}
