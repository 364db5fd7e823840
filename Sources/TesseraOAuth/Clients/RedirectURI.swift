public import TesseraCore
import TesseraHTTP

/// The redirect-URI rules of API §5 and §6 for native and web apps (RFC 8252 §7 and §8.3, RFC 6749 §3.1.2):
/// which URIs a client may register, and which requested URI matches a registered one.
public enum RedirectURI {
    /// Refuses (`INVALID_REDIRECT_URI`, saying why) a URI that may not be registered. Allowed are:
    /// - claimed `https` URIs with a host: `https://app.example.com/cb` (a port is allowed);
    /// - private-use schemes in reverse-domain form, which contain a period: `com.example.app:/oauth2redirect`;
    /// - loopback IP literals over plain `http` without a port: `http://127.0.0.1/cb`, `http://[::1]/cb`.
    ///
    /// Anything else is refused: relative URIs, other `http` hosts (`localhost` included, RFC 8252 §8.3), a port on
    /// a loopback URI, fragments, wildcards, user info, spaces and control characters, and schemes that are not
    /// redirect targets (`javascript:`, `data:`, `file:`, …).
    public static func validate(_ uri: String) throws(AuthError) {
        guard !uri.isEmpty, uri.utf8.count <= maximumLength else { throw refused(uri, "must be 1 to 2048 bytes") }
        guard uri.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw refused(uri, "must be printable ASCII without spaces (percent-encode the rest)")
        }
        guard !uri.contains("#") else { throw refused(uri, "must not have a fragment") }
        guard !uri.contains("*") else { throw refused(uri, "must not have a wildcard") }
        guard let (scheme, rest) = split(uri) else { throw refused(uri, "must be absolute, with a scheme") }
        switch scheme {
        case "https":
            guard let authority = authority(of: rest), let host = authority.host, !host.isEmpty else {
                throw refused(uri, "https URIs need a host: https://host/path")
            }
            guard !authority.hasUserInfo else { throw refused(uri, "must not carry user info") }
        case "http":
            guard let authority = authority(of: rest), let host = authority.host, loopbackHosts.contains(host) else {
                throw refused(uri, "plain http is only for loopback IP literals (http://127.0.0.1/ or http://[::1]/)")
            }
            guard authority.port == nil else {
                throw refused(uri, "register loopback URIs without a port; any port is accepted at authorization")
            }
        default:
            guard !forbiddenSchemes.contains(scheme) else { throw refused(uri, "\(scheme): is not a redirect scheme") }
            guard scheme.contains(".") else {
                throw refused(uri, "a private-use scheme must be a reverse domain name (com.example.app:/path)")
            }
        }
    }

    /// Whether `requested` matches `registered`: equal byte for byte, except that a loopback URI
    /// (`http://127.0.0.1/…`, `http://[::1]/…`) matches at any port (RFC 8252 §7.3).
    public static func matches(registered: String, requested: String) -> Bool {
        // Byte for byte: Swift's `==` would call canonically equivalent Unicode spellings (a precomposed and a
        // decomposed "é") equal, which RFC 6749 §3.1.2.3's simple string comparison does not.
        if requested.hasSameUTF8Bytes(as: registered) { return true }
        guard let (scheme, rest) = split(requested), scheme == "http",
            let authority = authority(of: rest), !authority.hasUserInfo, let host = authority.host,
            loopbackHosts.contains(host), let port = authority.port, let number = Int(port),
            (1...65535).contains(number),
            port.first != "0"
        else { return false }
        let withoutPort = "http://" + host + Substring(rest.utf8.dropFirst(2 + authority.text.utf8.count))
        return withoutPort.hasSameUTF8Bytes(as: registered)
    }

    /// The longest URI accepted.
    public static let maximumLength = 2048

    private static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]"]
    private static let forbiddenSchemes: Set<String> = ["javascript", "data", "file", "vbscript", "about", "blob"]

    /// The lower-cased scheme and what follows its colon, when the URI starts with a valid scheme.
    private static func split(_ uri: String) -> (scheme: String, rest: Substring)? {
        guard let colon = uri.firstIndex(of: ":") else { return nil }
        let scheme = uri[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0)
            })
        else { return nil }
        return (scheme.lowercased(), uri[uri.index(after: colon)...])
    }

    /// The authority of a hierarchical URI part (`//authority/path…`).
    private struct Authority {
        /// The authority as written.
        let text: Substring
        /// The host, with IPv6 brackets; nil when malformed.
        let host: String?
        /// The port digits, when given.
        let port: Substring?
        /// Whether `user@` precedes the host.
        let hasUserInfo: Bool
    }

    private static func authority(of rest: Substring) -> Authority? {
        guard rest.hasPrefix("//") else { return nil }
        let afterSlashes = rest.dropFirst(2)
        let text = afterSlashes.prefix { $0 != "/" && $0 != "?" }
        let hasUserInfo = text.contains("@")
        let hostAndPort = text.split(separator: "@", omittingEmptySubsequences: false).last ?? text
        var host: Substring
        var port: Substring?
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else {
                return Authority(text: text, host: nil, port: nil, hasUserInfo: hasUserInfo)
            }
            host = hostAndPort[...close]
            let tail = hostAndPort[hostAndPort.index(after: close)...]
            if !tail.isEmpty {
                guard tail.hasPrefix(":") else {
                    return Authority(text: text, host: nil, port: nil, hasUserInfo: hasUserInfo)
                }
                port = tail.dropFirst()
            }
        } else if let colon = hostAndPort.lastIndex(of: ":") {
            host = hostAndPort[..<colon]
            port = hostAndPort[hostAndPort.index(after: colon)...]
        } else {
            host = hostAndPort
        }
        if let digits = port, digits.isEmpty || !digits.allSatisfy(\.isASCIIDigitCharacter) {
            return Authority(text: text, host: nil, port: nil, hasUserInfo: hasUserInfo)
        }
        return Authority(text: text, host: String(host).lowercased(), port: port, hasUserInfo: hasUserInfo)
    }

    private static func refused(_ uri: String, _ why: String) -> AuthError {
        let shown = uri.utf8.count <= 200 ? uri : String(uri.prefix(200)) + "…"
        return AuthError(.invalidRedirectURI, "redirect URI \(shown) \(why)")
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
