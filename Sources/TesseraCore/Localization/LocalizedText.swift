/// A text to show in the reader's language, not yet translated: its English form, which is also its key in the
/// catalogues (gettext's `msgid`), with `{name}` placeholders and their values. `{wait}` takes ``wait`` seconds,
/// written in words of the language. A string literal is a text without placeholders.
public struct LocalizedText: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The English text, placeholders included.
    public let key: String
    /// Placeholder name → value, inserted as given (escaping is the renderer's).
    public var values: [String: String]
    /// Seconds for the `{wait}` placeholder.
    public var wait: Int?

    /// A text with placeholders.
    public init(_ key: String, _ values: [String: String] = [:], wait: Int? = nil) {
        self.key = key
        self.values = values
        self.wait = wait
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The English form, filled.
    public var description: String { Texts(.en)(self) }
}
