/// The rule of the ``SMSTemplateTable`` format that a line breaks.
enum SMSTemplateLineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A space at the start or end of the line, or next to another between the fields.
    case extraSpace
    /// Fewer than the three fields `LANGUAGE KIND TEXT` (the count found).
    case fieldCount(Int)
    /// The language is not 2 or 3 lower-case letters, optionally followed by `-` and 4 lower-case letters.
    case language(String)
    /// The kind is not the raw value of an ``SMSKind``.
    case kind(String)
    /// The text holds a control character (a tab, a line break, …).
    case controlCharacter
    /// A `{` without a `}` after it.
    case unclosedBrace
    /// A `}` without a `{` before it.
    case strayBrace
    /// A placeholder other than `{code}` and `{app}` (its name).
    case unknownPlaceholder(String)
    /// `{code}` does not appear exactly once (the count found).
    case codeCount(Int)
    /// `{app}` appears more than once (the count found).
    case appCount(Int)
    /// The (language, kind) already has a template on an earlier line (its 1-based number).
    case duplicate(firstLine: Int)

    /// What is wrong, naming the offending field.
    var description: String {
        switch self {
        case .extraSpace: "a space at the start or end of the line, or next to another between the fields"
        case .fieldCount(let count): "expected LANGUAGE KIND TEXT separated by single spaces, found \(count) fields"
        case .language(let language):
            "language \"\(language)\" is not 2 or 3 lower-case letters, optionally with -script (4 letters)"
        case .kind(let kind): "kind \"\(kind)\" is not one of \(SMSKind.allCases.map(\.rawValue))"
        case .controlCharacter: "the text holds a control character"
        case .unclosedBrace: "a { without a closing }"
        case .strayBrace: "a } without an opening {"
        case .unknownPlaceholder(let name): "unknown placeholder {\(name)}; only {code} and {app} exist"
        case .codeCount(let count): "{code} must appear exactly once, found \(count)"
        case .appCount(let count): "{app} may appear at most once, found \(count)"
        case .duplicate(let line): "the language and kind already have a template on line \(line)"
        }
    }
}
