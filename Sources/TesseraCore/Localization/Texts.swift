/// The texts of one language: translates ``LocalizedText``s through ``TextCatalogue/shared`` and fills their
/// placeholders. A text the catalogue lacks is shown in English (and counted in ``TextCatalogue/misses`` when a
/// test asks).
public struct Texts: Sendable, Equatable {
    /// The texts of the request being answered: the login pages bind them for each request (from its language
    /// cookie or `Accept-Language`), so that everything rendering a page can translate without passing them along.
    @TaskLocal public static var current = Texts(.en)

    /// The language of the texts.
    public let language: Language

    /// The texts of `language`.
    public init(_ language: Language) {
        self.language = language
    }

    /// `text` in the language, placeholders filled.
    public func callAsFunction(_ text: LocalizedText) -> String {
        var values = text.values
        if let wait = text.wait { values["wait"] = duration(wait) }
        return Self.fill(TextCatalogue.shared.translation(of: text.key, in: language), values)
    }

    /// The text `key` (English) in the language, with `values` for its placeholders.
    public func callAsFunction(_ key: String, _ values: [String: String] = [:]) -> String {
        self(LocalizedText(key, values))
    }

    /// `seconds` in words, rounded up to the unit that reads best ("45 seconds", "15 minutes", "2 hours"); "a
    /// moment" for none.
    public func duration(_ seconds: Int) -> String {
        guard seconds > 0 else { return self("a moment") }
        let (count, unit): (Int, String) =
            seconds < 60
            ? (seconds, "second")
            : seconds < 3600 ? ((seconds + 59) / 60, "minute") : ((seconds + 3599) / 3600, "hour")
        let key = count == 1 ? "1 \(unit)" : "{count} \(unit)s"
        return self(key, ["count": String(count)])
    }

    /// `template` with every `{name}` of `values` replaced; other braces are left as they are.
    static func fill(_ template: String, _ values: [String: String]) -> String {
        guard template.contains("{"), !values.isEmpty else { return template }
        var result = template
        for (name, value) in values { result = result.replacing("{\(name)}", with: value) }
        return result
    }
}
