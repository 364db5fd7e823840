extension SMSTemplates {
    /// The longest `languageCode` considered; BCP 47 tags in use are far shorter.
    static let maxLanguageCodeLength = 35

    /// The scripts that regions imply for a language written in more than one, keyed `language-region`.
    static let impliedScripts: [String: String] = ["zh-tw": "hant", "zh-hk": "hant", "zh-mo": "hant"]

    /// The table keys to try for a requested language, best first, without the fallback: `language-script` (given,
    /// or implied by the region) then `language`. Empty when the request is absent or not a well-formed tag.
    ///
    /// A well-formed tag here is BCP 47's outline: subtags of 1 to 8 ASCII letters or digits, separated by `-` or
    /// `_`, the first of 2 or 3 letters; case is ignored. So `fr-CA`, `fr_CA` and `FR` give `fr`, and
    /// `zh-Hant-TW` gives `zh-hant` then `zh`; `""`, `e`, `../../etc` and `fr--CA` give nothing.
    static func languageCandidates(for languageCode: String?) -> [String] {
        guard let languageCode, (1...maxLanguageCodeLength).contains(languageCode.utf8.count) else { return [] }
        let subtags = languageCode.lowercased().split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "-" || $0 == "_" })
        guard subtags.allSatisfy(isSubtag), (2...3).contains(subtags[0].utf8.count), isLetters(subtags[0]) else {
            return []
        }
        let language = String(subtags[0])
        var script: String?
        var regionIndex = 1
        if subtags.count > 1, subtags[1].utf8.count == 4, isLetters(subtags[1]) {
            script = String(subtags[1])
            regionIndex = 2
        }
        if script == nil, subtags.count > regionIndex {
            script = impliedScripts["\(language)-\(subtags[regionIndex])"]
        }
        return script.map { ["\(language)-\($0)", language] } ?? [language]
    }

    /// Whether the text is 1 to 8 lower-case ASCII letters or digits.
    private static func isSubtag(_ text: Substring) -> Bool {
        (1...8).contains(text.utf8.count) && text.utf8.allSatisfy { isLetter($0) || isDigit($0) }
    }

    /// Whether the text is all lower-case ASCII letters.
    private static func isLetters(_ text: Substring) -> Bool {
        text.utf8.allSatisfy(isLetter)
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
