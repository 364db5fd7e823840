/// A `scope` parameter (RFC 6749 §3.3): space-separated tokens of printable ASCII except `"` and `\`, order
/// irrelevant, kept in the order first given without repeats.
public struct Scope: Sendable, Equatable {
    /// The tokens, without repeats.
    public let tokens: [String]

    /// The tokens of `list`, repeats dropped.
    public init(_ list: [String]) {
        // A scope of a few tokens, as nearly every one is, is kept as it is when comparing finds no repeat: no
        // hashing, no copy.
        if list.count <= Self.comparedTokens, !list.indices.contains(where: { list[..<$0].contains(list[$0]) }) {
            tokens = list
            return
        }
        var seen = Set<String>(minimumCapacity: list.count)
        tokens = list.filter { seen.insert($0).inserted }
    }

    /// The longest list whose repeats are found by comparing each token with those before it.
    static let comparedTokens = 16

    /// Parses a `scope` parameter; `invalid_scope` when a token has a character RFC 6749 §3.3 forbids.
    public init(parsing text: String) throws(OAuthError) {
        let tokens = Self.words(text)
        guard !tokens.isEmpty else { throw OAuthError(.invalidScope, "scope is empty") }
        for token in tokens where !Self.isToken(token) {
            throw OAuthError(.invalidScope, "scope token \(token.debugDescription) has a forbidden character")
        }
        self.init(tokens)
    }

    /// The words of a space-separated list (scopes, `prompt`, the lists a client row stores), empty ones dropped.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var rest = text.utf8[...]
        while let start = rest.firstIndex(where: { $0 != UInt8(ascii: " ") }) {
            let end = rest[start...].firstIndex(of: UInt8(ascii: " ")) ?? rest.endIndex
            words.append(String(decoding: rest[start..<end], as: UTF8.self))
            rest = rest[end...]
        }
        return words
    }

    /// Whether `token` is an RFC 6749 §3.3 scope token: one or more of `%x21 / %x23-5B / %x5D-7E` (printable ASCII
    /// without space, `"` and `\`).
    public static func isToken(_ token: String) -> Bool {
        !token.isEmpty
            && token.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// The parameter's text: the tokens joined by single spaces.
    public var text: String {
        guard tokens.count > 1 else { return tokens.first ?? "" }
        var text = ""
        text.reserveCapacity(tokens.reduce(tokens.count - 1) { $0 + $1.utf8.count })
        for (index, token) in tokens.enumerated() {
            if index > 0 { text.append(" ") }
            text.append(token)
        }
        return text
    }

    /// Whether `token` is granted.
    public func contains(_ token: String) -> Bool { tokens.contains(token) }

    /// Whether every token of this scope is in `other`.
    public func isSubset(of other: Scope) -> Bool { tokens.allSatisfy(other.contains) }
}
