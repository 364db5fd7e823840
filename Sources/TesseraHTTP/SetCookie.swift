/// A `Set-Cookie` field value (RFC 6265 §4.1), validated when written.
public struct SetCookie: Hashable, Sendable {
    /// The `SameSite` attribute.
    public enum SameSite: String, Hashable, Sendable {
        case strict = "Strict"
        case lax = "Lax"
        case none = "None"
    }

    /// The cookie name: an RFC 9110 token.
    public var name: String
    /// The cookie value: RFC 6265 cookie-octets only (encode anything else, e.g. base64url).
    public var value: String
    /// `Path`, when set.
    public var path: String?
    /// `Domain`, when set; without it the cookie is host-only.
    public var domain: String?
    /// `Max-Age` in seconds, when set; 0 or less deletes the cookie.
    public var maxAge: Int?
    /// `Secure`: sent over https only.
    public var secure: Bool
    /// `HttpOnly`: hidden from scripts.
    public var httpOnly: Bool
    /// `SameSite`, when set.
    public var sameSite: SameSite?

    /// Creates a cookie; the defaults are the safe ones: path `/`, `HttpOnly`, `SameSite=Lax`, a session cookie.
    public init(
        name: String, value: String, path: String? = "/", domain: String? = nil, maxAge: Int? = nil,
        secure: Bool = false, httpOnly: Bool = true, sameSite: SameSite? = .lax
    ) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.maxAge = maxAge
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    /// A cookie that deletes `name` (empty value, `Max-Age=0`) for the given path and domain.
    public static func deletion(name: String, path: String? = "/", domain: String? = nil) -> SetCookie {
        SetCookie(name: name, value: "", path: path, domain: domain, maxAge: 0)
    }

    /// The field value, such as `sid=abc; Path=/; Max-Age=3600; Secure; HttpOnly; SameSite=Lax`.
    public func headerValue() throws(SetCookieError) -> String {
        guard HTTPResponseEncoder.isToken(name) else { throw .invalidName(name) }
        guard value.allUTF8Bytes(satisfy: SetCookie.isCookieOctet) else { throw .invalidValue(name: name) }
        var text = name + "=" + value
        if let path {
            guard SetCookie.isAttributeValue(path) else { throw .invalidAttribute(name: name) }
            text += "; Path=" + path
        }
        if let domain {
            guard SetCookie.isAttributeValue(domain), !domain.isEmpty else { throw .invalidAttribute(name: name) }
            text += "; Domain=" + domain
        }
        if let maxAge {
            text += "; Max-Age=" + String(maxAge)
        }
        if secure {
            text += "; Secure"
        }
        if httpOnly {
            text += "; HttpOnly"
        }
        if let sameSite {
            guard sameSite != .none || secure else { throw .sameSiteNoneRequiresSecure(name: name) }
            text += "; SameSite=" + sameSite.rawValue
        }
        return text
    }

    /// cookie-octet of RFC 6265 §4.1.1.
    static func isCookieOctet(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x23...0x2B, 0x2D...0x3A, 0x3C...0x5B, 0x5D...0x7E: true
        default: false
        }
    }

    /// Attribute values may hold any printable ASCII except `;`.
    static func isAttributeValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") }
    }
}
