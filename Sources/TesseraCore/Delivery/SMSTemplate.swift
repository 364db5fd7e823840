/// One line of ``SMSTemplateTable``: the text of one kind of SMS in one language, split at its placeholders.
struct SMSTemplate: Hashable, Sendable {
    /// A piece of the text: literal text, or where the code or the app name goes.
    enum Segment: Hashable, Sendable {
        /// Text sent as it is.
        case literal(String)
        /// The `{code}` placeholder.
        case code
        /// The `{app}` placeholder.
        case app
    }

    /// The table's language key (`en`, `zh-hant`).
    let language: String
    /// The kind of SMS the text is for.
    let kind: SMSKind
    /// The text, in order; `.code` appears exactly once and `.app` at most once.
    let segments: [Segment]

    /// Parses a line of the table format (`LANGUAGE KIND TEXT`).
    ///
    /// Comment and blank lines are not templates: the caller skips them. Any other deviation from the format
    /// throws the first rule the line breaks.
    init(line: Substring) throws(SMSTemplateLineError) {
        let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3 else {
            throw fields.contains(where: \.isEmpty) ? .extraSpace : .fieldCount(fields.count)
        }
        let text = fields[2]
        guard !fields.contains(where: \.isEmpty), text.first != " ", text.last != " " else { throw .extraSpace }
        guard Self.isLanguageKey(fields[0]) else { throw .language(String(fields[0])) }
        guard let kind = SMSKind(rawValue: String(fields[1])) else { throw .kind(String(fields[1])) }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .controlCharacter
        }
        let segments = try Self.segments(of: text)
        let codeCount = segments.count { $0 == .code }
        guard codeCount == 1 else { throw .codeCount(codeCount) }
        let appCount = segments.count { $0 == .app }
        guard appCount <= 1 else { throw .appCount(appCount) }
        language = String(fields[0])
        self.kind = kind
        self.segments = segments
    }

    /// The text with the code and the app name in place of their placeholders, inserted as they are: a code or
    /// an app name that looks like a placeholder is not expanded again.
    func render(code: String, appName: String) -> String {
        var body = ""
        for segment in segments {
            switch segment {
            case .literal(let text): body += text
            case .code: body += code
            case .app: body += appName
            }
        }
        return body
    }

    /// Whether the text is a language key of the table: 2 or 3 lower-case ASCII letters, optionally followed by
    /// `-` and 4 lower-case ASCII letters.
    static func isLanguageKey(_ text: Substring) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        let isLowercase = { (part: Substring) in
            part.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
        }
        guard (1...2).contains(parts.count), (2...3).contains(parts[0].utf8.count), isLowercase(parts[0]) else {
            return false
        }
        return parts.count == 1 || (parts[1].utf8.count == 4 && isLowercase(parts[1]))
    }

    /// The text split into literal text and placeholders.
    private static func segments(of text: Substring) throws(SMSTemplateLineError) -> [Segment] {
        var segments: [Segment] = []
        var rest = text
        while let brace = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[brace] == "{" else { throw .strayBrace }
            if brace > rest.startIndex { segments.append(.literal(String(rest[..<brace]))) }
            let afterBrace = rest.index(after: brace)
            guard let close = rest[afterBrace...].firstIndex(where: { $0 == "{" || $0 == "}" }), rest[close] == "}"
            else { throw .unclosedBrace }
            switch rest[afterBrace..<close] {
            case "code": segments.append(.code)
            case "app": segments.append(.app)
            case let name: throw .unknownPlaceholder(String(name))
            }
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { segments.append(.literal(String(rest))) }
        return segments
    }
}
