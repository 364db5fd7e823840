/// A language the login pages and mails are written in (docs/login-pages.md#languages). English is the fallback
/// of every choice and of every text a catalogue lacks.
public enum Language: String, Sendable, CaseIterable, Hashable {
    case en, ja, ru, fr

    /// The language of a BCP 47 tag (`ja`, `ja-JP`, `fr_CA`, `RU`), by its primary subtag; nil for any other.
    public init?(tag: String) {
        let primary = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() } ?? ""
        self.init(rawValue: primary)
    }

    /// The language to answer in: the first of `uiLocales` (OIDC's space-separated tags, in preference order) that
    /// is known, else the best of `acceptLanguage` (RFC 9110 §12.5.4: by `q`, then order; `q=0` excluded), else
    /// `fallback` (the tenant's default), else English.
    public static func negotiate(uiLocales: String?, acceptLanguage: String?, fallback: Language?) -> Language {
        if let uiLocales {
            for tag in uiLocales.split(separator: " ") {
                if let language = Language(tag: String(tag)) { return language }
            }
        }
        if let acceptLanguage, let language = best(acceptLanguage) { return language }
        return fallback ?? .en
    }

    /// The known language `Accept-Language` prefers, if any.
    static func best(_ header: String) -> Language? {
        var choices: [(language: Language, quality: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").prefix(32).enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: " \t") }
            guard let tag = parts.first, let language = Language(tag: tag) else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if quality > 0 { choices.append((language, quality, order)) }
        }
        return choices.min { ($1.quality, $0.order) < ($0.quality, $1.order) }?.language
    }
}

extension Substring {
    /// The text without leading and trailing characters of `set`.
    fileprivate func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        guard let first = firstIndex(where: { !characters.contains($0) }),
            let last = lastIndex(where: { !characters.contains($0) })
        else { return "" }
        return String(self[first...last])
    }
}
