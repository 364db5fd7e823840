/// The cookies a virtual user holds, by name: what the server set with `Set-Cookie`, sent back as one `Cookie`
/// field. Attributes (path, expiry, flags) are ignored except that an empty value or `Max-Age=0` removes a cookie:
/// every request goes to the one server.
struct CookieJar: Sendable {
    private var cookies: [(name: String, value: String)] = []

    /// Takes in every `Set-Cookie` of a response.
    mutating func store(_ setCookies: [String]) {
        for field in setCookies {
            let attributes = field.split(separator: ";").map { $0.trimmingSpaces() }
            guard let pair = attributes.first, let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            let value = String(pair[pair.index(after: equals)...])
            let expired = attributes.dropFirst().contains { $0.lowercased() == "max-age=0" }
            cookies.removeAll { $0.name == name }
            if !value.isEmpty && !expired { cookies.append((name, value)) }
        }
    }

    /// Whether the jar holds no cookie.
    var isEmpty: Bool { cookies.isEmpty }

    /// The `Cookie: ...` field line, or nil when the jar is empty.
    var field: String? {
        cookies.isEmpty ? nil : "Cookie: " + cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> Substring {
        let start = firstIndex { $0 != " " && $0 != "\t" } ?? endIndex
        let end = self[start...].lastIndex { $0 != " " && $0 != "\t" }.map { index(after: $0) } ?? start
        return self[start..<end]
    }
}
