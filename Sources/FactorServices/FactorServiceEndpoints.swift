public import TesseraCore
import TesseraHTTP

/// The endpoint URLs of a registered factor service, checked (`docs/factor-protocol.md` §1): `https`, or plain
/// `http` to a loopback address (`127.0.0.0/8`, `[::1]`) unless the registration allows insecure http. At most
/// eight; no user info, query or fragment.
public struct FactorServiceEndpoints: Sendable, Equatable {
    /// The most endpoints a service may list.
    public static let maximum = 8

    /// The URLs, in the order registered.
    public let urls: [String]

    /// Checks `urls`: `INVALID_ARGUMENT` naming the first bad one.
    public init(_ urls: [String], allowInsecureHttp: Bool) throws(AuthError) {
        guard (1...Self.maximum).contains(urls.count) else {
            throw AuthError(.invalidArgument, "endpoints must list 1 to \(Self.maximum) URLs")
        }
        for text in urls {
            let url: HTTPClientURL
            do {
                url = try HTTPClientURL(parsing: text)
            } catch {
                throw AuthError(.invalidArgument, "endpoint \(text) is not a valid http(s) URL")
            }
            guard !text.contains("@"), !text.contains("?"), !text.contains("#") else {
                throw AuthError(.invalidArgument, "endpoint \(text) may not carry user info, a query or a fragment")
            }
            if url.scheme == .http, !allowInsecureHttp, !Self.isLoopback(url.host) {
                throw AuthError(
                    .invalidArgument,
                    "endpoint \(text) must use https (plain http only to loopback, or with allowInsecureHttp)")
            }
        }
        self.urls = urls
    }

    /// Whether `host` is a loopback address literal.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let address = IPAddress(parsing: bare) else { return false }
        if address.isIPv4 { return address.bytes.first == 127 }
        return address.bytes == [UInt8](repeating: 0, count: 15) + [1]
    }
}
