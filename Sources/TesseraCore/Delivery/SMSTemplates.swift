/// The localized texts of the SMS that carry codes (API §4): ``SMSTemplateTable`` parsed into a lookup by language
/// and kind.
///
/// The language a caller asks for (the `languageCode` param) is matched case-insensitively against the table:
/// `fr-CA`, `fr_CA` and `FR` find `fr`; a script is honoured when the table has it (`zh-Hant-TW` finds `zh-hant`,
/// else `zh`), and so is the script a Chinese region implies (`zh-TW`, `zh-HK` and `zh-MO` find `zh-hant`).
/// Anything absent, empty, malformed or unknown falls back to English.
public struct SMSTemplates: Sendable {
    /// The templates of `SMSTemplateTable.text`, parsed on first use (a `static let`: once, thread-safe).
    public static let shared = SMSTemplates(parsing: SMSTemplateTable.text)

    /// The language every other one falls back to.
    public static let fallbackLanguage = "en"
    /// The most characters of an app name put into a message; the rest is cut off.
    public static let maxAppNameLength = 40

    /// The well-formed templates, in table order, without duplicates.
    let templates: [SMSTemplate]
    /// The malformed lines (1-based line number and the rule broken), left out of the lookup. The table's own test
    /// requires none.
    let malformedLines: [MalformedLine]
    /// Template by kind, by language key.
    private let templatesByLanguage: [String: [SMSKind: SMSTemplate]]

    /// A line of the table that does not parse.
    struct MalformedLine: Hashable, Sendable {
        /// The 1-based line number in the text.
        let lineNumber: Int
        /// The rule the line breaks.
        let error: SMSTemplateLineError
    }

    /// Parses every line of the text; a malformed or duplicate line is recorded in `malformedLines` and otherwise
    /// ignored (the first template of a language and kind wins).
    init(parsing text: String) {
        var templates: [SMSTemplate] = []
        var malformedLines: [MalformedLine] = []
        var templatesByLanguage: [String: [SMSKind: SMSTemplate]] = [:]
        var lineNumbers: [String: [SMSKind: Int]] = [:]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, line) in lines.enumerated() where !line.isEmpty && !line.hasPrefix("#") {
            let template: SMSTemplate
            do {
                template = try SMSTemplate(line: line)
            } catch {
                malformedLines.append(MalformedLine(lineNumber: offset + 1, error: error))
                continue
            }
            if let firstLine = lineNumbers[template.language]?[template.kind] {
                malformedLines.append(MalformedLine(lineNumber: offset + 1, error: .duplicate(firstLine: firstLine)))
                continue
            }
            lineNumbers[template.language, default: [:]][template.kind] = offset + 1
            templatesByLanguage[template.language, default: [:]][template.kind] = template
            templates.append(template)
        }
        self.templates = templates
        self.malformedLines = malformedLines
        self.templatesByLanguage = templatesByLanguage
    }

    /// The language keys of the table (`en`, `zh-hant`), sorted.
    public var languages: [String] { templatesByLanguage.keys.sorted() }

    /// The message of `kind` carrying `code`, in the language that best matches `languageCode`, and that language.
    ///
    /// `code` is inserted as it is. `appName` is inserted as it is, except that control characters are dropped and
    /// it is cut to ``maxAppNameLength`` characters. The language returned is the one the body is written in: the
    /// best match of `languageCode` that has a template of `kind`, else ``fallbackLanguage``. Should the table
    /// lack even the English template of `kind` (its test rules that out), the body is the code alone.
    public func render(
        kind: SMSKind, code: String, appName: String, languageCode: String?
    ) -> (body: String, languageCode: String) {
        let candidates = Self.languageCandidates(for: languageCode) + [Self.fallbackLanguage]
        for language in candidates {
            if let template = templatesByLanguage[language]?[kind] {
                return (template.render(code: code, appName: Self.sanitizedAppName(appName)), language)
            }
        }
        return (code, Self.fallbackLanguage)
    }

    /// The app name as a message shows it: without control characters, at most ``maxAppNameLength`` characters.
    static func sanitizedAppName(_ appName: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: appName.unicodeScalars.filter { $0.properties.generalCategory != .control })
        return String(String(scalars).prefix(maxAppNameLength))
    }
}
