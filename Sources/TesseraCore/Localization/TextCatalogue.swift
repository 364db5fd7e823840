import Synchronization

/// The translations of the texts of the login pages and mails, one table per language (`Catalogue+ja.swift`, …),
/// each a text a translator edits: an English line, then its translation on the next line after `= `. Lines
/// starting with `#` and blank lines are ignored. English itself needs no table: the English text is the key.
///
/// ``TextCatalogueTests`` require every table to translate every key of every other, with the same placeholders,
/// and no malformed line; and the pages' tests render every page in every language with no text missing.
public final class TextCatalogue: Sendable {
    /// The catalogue of the tables built in.
    public static let shared = TextCatalogue(tables: [
        .ja: CatalogueJA.text, .ru: CatalogueRU.text, .fr: CatalogueFR.text,
    ])

    /// Translation by English key, by language.
    let translations: [Language: [String: String]]
    /// Lines that do not parse, by language: (1-based line number, why).
    let malformed: [Language: [(line: Int, problem: String)]]
    /// Keys asked for in a language without a translation, when ``recordsMisses`` is on (tests).
    private let missed = Mutex<Set<String>>([])
    private let recording = Atomic<Bool>(false)

    /// Parses the tables.
    init(tables: [Language: String]) {
        var translations: [Language: [String: String]] = [:]
        var malformed: [Language: [(line: Int, problem: String)]] = [:]
        for (language, text) in tables {
            var table: [String: String] = [:]
            var problems: [(line: Int, problem: String)] = []
            var pending: (key: String, line: Int)?
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.drop { $0 == " " }
                if trimmed.isEmpty || trimmed.hasPrefix("#") {
                    if let open = pending { problems.append((open.line, "no translation follows")) }
                    pending = nil
                } else if trimmed.hasPrefix("= ") {
                    guard let key = pending?.key else {
                        problems.append((index + 1, "a translation without its English line"))
                        continue
                    }
                    if table[key] != nil { problems.append((index + 1, "translated twice")) }
                    table[key] = Self.unescaped(trimmed.dropFirst(2))
                    pending = nil
                } else {
                    if let open = pending { problems.append((open.line, "no translation follows")) }
                    pending = (Self.unescaped(trimmed), index + 1)
                }
            }
            if let open = pending { problems.append((open.line, "no translation follows")) }
            translations[language] = table
            malformed[language] = problems
        }
        self.translations = translations
        self.malformed = malformed
    }

    /// `text` with each `\n` turned into a line break.
    private static func unescaped(_ text: Substring) -> String {
        String(text).replacing("\\n", with: "\n")
    }

    /// The translation of `key` into `language`, or `key` (English) when there is none.
    public func translation(of key: String, in language: Language) -> String {
        guard language != .en else { return key }
        if let translated = translations[language]?[key] { return translated }
        if recording.load(ordering: .relaxed) { missed.withLock { _ = $0.insert("\(language.rawValue): \(key)") } }
        return key
    }

    /// Starts recording the keys asked for without a translation (tests), forgetting earlier ones.
    public func recordMisses() {
        missed.withLock { $0.removeAll() }
        recording.store(true, ordering: .relaxed)
    }

    /// The keys asked for without a translation since ``recordMisses()``, as `language: key`.
    public var misses: Set<String> { missed.withLock { $0 } }
}
