/// E-mail addresses as accounts store them: trimmed and lower-cased, so `Ada@Example.com` and `ada@example.com`
/// are one account per tenant.
public enum EmailAddress {
    /// The longest address accepted (RFC 5321's path limit less the angle brackets).
    static let maximumLength = 254

    /// The normalized form of `text`, or `INVALID_EMAIL` when it is not a plausible address: one `@`, a local part
    /// of 1–64 characters, a domain with at least one dot and no empty labels, no spaces or control characters.
    public static func normalize(_ text: String) throws(AuthError) -> String {
        let address = text.trimmingASCIIWhitespace().lowercased()
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard address.utf8.count <= maximumLength, parts.count == 2,
            (1...64).contains(parts[0].utf8.count),
            parts[1].contains("."), !parts[1].split(separator: ".", omittingEmptySubsequences: false).contains(""),
            !address.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
        else {
            throw AuthError(.invalidEmail, "The e-mail address is badly formatted.")
        }
        return address
    }
}

extension String {
    /// The string without leading and trailing ASCII spaces, tabs and line breaks.
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
