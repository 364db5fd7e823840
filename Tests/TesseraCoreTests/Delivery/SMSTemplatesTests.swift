import Testing

@testable import TesseraCore

/// The SMS template table (every line well-formed, every language complete, placeholders as the format says),
/// language resolution and its fallbacks, rendering, and the parser on bad tables.
@Suite struct SMSTemplatesTests {
    let templates = SMSTemplates.shared

    @Test func everyLineOfTheTableParses() {
        #expect(templates.malformedLines == [])
        #expect(templates.templates.count == templates.languages.count * SMSKind.allCases.count)
    }

    @Test func theContractsLanguagesAndMoreArePresent() {
        for language in ["en", "ja", "ru", "fr", "de", "es", "it", "pt", "zh", "zh-hant"] {
            #expect(templates.languages.contains(language), "\(language)")
        }
    }

    @Test func everyLanguageHasEveryKindOnce() {
        for language in templates.languages {
            for kind in SMSKind.allCases {
                let matching = templates.templates.filter { $0.language == language && $0.kind == kind }
                #expect(matching.count == 1, "\(language) \(kind)")
            }
        }
    }

    @Test func everyTemplateHasTheCodeOnceTheAppAtMostOnceAndNoOtherBraces() {
        for template in templates.templates {
            #expect(template.segments.count { $0 == .code } == 1, "\(template.language) \(template.kind)")
            #expect(template.segments.count { $0 == .app } <= 1, "\(template.language) \(template.kind)")
            for case .literal(let text) in template.segments {
                #expect(!text.contains("{") && !text.contains("}"), "\(template.language) \(template.kind)")
            }
        }
    }

    @Test func everyTemplateStartsWithTheCode() {
        for template in templates.templates {
            #expect(template.segments.first == .code, "\(template.language) \(template.kind)")
        }
    }

    @Test func everyMessageFitsInOneSMSWithATenCharacterAppName() {
        for template in templates.templates {
            let body = template.render(code: "123456", appName: "Acme Notes")
            let limit = body.allSatisfy(Self.gsmBasicCharacters.contains) ? 160 : 70
            #expect(body.utf16.count <= limit, "\(template.language) \(template.kind): \(body.utf16.count)")
        }
    }

    @Test func renderingInsertsTheCodeAndTheAppName() {
        let english = templates.render(kind: .phoneSignIn, code: "123456", appName: "Acme", languageCode: "en")
        #expect(english.body == "123456 is your verification code for Acme.")
        #expect(english.languageCode == "en")
        let japanese = templates.render(kind: .mfaSignIn, code: "654321", appName: "Acme", languageCode: "ja")
        #expect(japanese.body == "654321 は Acme の2段階認証の確認コードです。")
        #expect(japanese.languageCode == "ja")
        for language in templates.languages {
            for kind in SMSKind.allCases {
                let rendered = templates.render(kind: kind, code: "042424", appName: "Zebra", languageCode: language)
                #expect(rendered.languageCode == language)
                #expect(rendered.body.hasPrefix("042424"), "\(language) \(kind)")
                #expect(rendered.body.contains("Zebra"), "\(language) \(kind)")
                #expect(!rendered.body.contains("{"), "\(language) \(kind)")
            }
        }
    }

    @Test func theKindsHaveDifferentTexts() {
        for language in templates.languages {
            let bodies = Set(
                SMSKind.allCases.map {
                    templates.render(kind: $0, code: "1", appName: "A", languageCode: language).body
                })
            #expect(bodies.count == SMSKind.allCases.count, "\(language)")
        }
    }

    @Test func anAppNameIsInsertedVerbatimWithoutControlCharactersAndCutToFortyCharacters() {
        let braces = templates.render(kind: .phoneSignIn, code: "123456", appName: "{code} & {app}", languageCode: nil)
        #expect(braces.body == "123456 is your verification code for {code} & {app}.")
        let controls = templates.render(
            kind: .phoneSignIn, code: "1", appName: "Ac\u{0}me\n\r\t\u{7F}\u{85} Co", languageCode: nil)
        #expect(controls.body == "1 is your verification code for Acme Co.")
        let long = String(repeating: "é", count: 39) + "👩‍👩‍👧xyz"
        let cut = templates.render(kind: .phoneSignIn, code: "1", appName: long, languageCode: nil)
        #expect(cut.body == "1 is your verification code for \(String(repeating: "é", count: 39))👩‍👩‍👧.")
        #expect(SMSTemplates.sanitizedAppName(String(repeating: "a", count: 100)).count == 40)
        #expect(SMSTemplates.sanitizedAppName("") == "")
    }

    @Test(
        arguments: [
            (nil, "en"), ("", "en"), ("en", "en"), ("xx", "en"), ("fr-CA", "fr"), ("fr_CA", "fr"), ("FR", "fr"),
            ("Fr-cA", "fr"), ("pt_BR", "pt"), ("pt-PT", "pt"), ("ja-JP", "ja"), ("ru", "ru"), ("de-CH-1996", "de"),
            ("zh-Hant-TW", "zh-hant"), ("zh-Hant", "zh-hant"), ("zh_hant_hk", "zh-hant"), ("zh-TW", "zh-hant"),
            ("zh-HK", "zh-hant"), ("zh-Hans-CN", "zh"), ("zh-CN", "zh"), ("zh", "zh"), ("sr-Latn", "en"),
            ("../../etc", "en"), ("fr--CA", "en"), ("-fr", "en"), ("fr-", "en"), ("f", "en"), ("fren", "en"),
            ("12", "en"), ("fr CA", "en"), (" fr", "en"), ("fr-toolongsubtag", "en"), ("é", "en"), ("fr\u{0}", "en"),
            (String(repeating: "fr-", count: 20) + "fr", "en"), ("en-x-private", "en"), ("x-private", "en"),
        ] as [(String?, String)])
    func languagesResolveToTheirTableKeyOrEnglish(requested: String?, expected: String) {
        let rendered = templates.render(kind: .mfaEnrollment, code: "123456", appName: "Acme", languageCode: requested)
        #expect(rendered.languageCode == expected)
        let direct = templates.render(kind: .mfaEnrollment, code: "123456", appName: "Acme", languageCode: expected)
        #expect(rendered.body == direct.body)
    }

    @Test func aScriptFallsBackToItsLanguageWhenTheTableLacksIt() {
        #expect(SMSTemplates.languageCandidates(for: "zh-Hant-TW") == ["zh-hant", "zh"])
        #expect(SMSTemplates.languageCandidates(for: "zh-MO") == ["zh-hant", "zh"])
        #expect(SMSTemplates.languageCandidates(for: "sr-Cyrl-RS") == ["sr-cyrl", "sr"])
        #expect(SMSTemplates.languageCandidates(for: "fr_CA") == ["fr"])
        #expect(SMSTemplates.languageCandidates(for: "../../etc") == [])
        let chinese = SMSTemplates(parsing: "zh phone_sign_in {code} 是您的 {app} 验证码。")
        let rendered = chinese.render(kind: .phoneSignIn, code: "1", appName: "A", languageCode: "zh-Hant-TW")
        #expect(rendered == (body: "1 是您的 A 验证码。", languageCode: "zh"))
    }

    @Test func aLanguageWithoutTheKindFallsBackToEnglishAndATableWithoutEnglishToTheBareCode() {
        let partial = SMSTemplates(
            parsing: """
                en phone_sign_in {code} is your code.
                fr mfa_sign_in {code} est votre code.
                """)
        #expect(partial.malformedLines == [])
        let render = { (kind: SMSKind) in partial.render(kind: kind, code: "123456", appName: "A", languageCode: "fr") }
        #expect(render(.phoneSignIn) == ("123456 is your code.", "en"))
        #expect(render(.mfaSignIn) == ("123456 est votre code.", "fr"))
        #expect(render(.mfaEnrollment) == ("123456", "en"))
        #expect(partial.languages == ["en", "fr"])
    }

    @Test func aBadTableLineIsReportedWithItsLineNumber() {
        let table = """
            # a comment, then a blank line

            en phone_sign_in {code} is your code for {app}.
            en phone_sign_in {code} again.
            en  mfa_sign_in {code}
             en mfa_sign_in {code}
            en mfa_sign_in {code}\u{20}
            en mfa_sign_in
            EN mfa_sign_in {code}
            english mfa_sign_in {code}
            zh-hant-tw mfa_sign_in {code}
            zh-han mfa_sign_in {code}
            en sign_in {code}
            en mfa_sign_in {code}\tx
            en mfa_sign_in {code} {oops
            en mfa_sign_in {code} oops}
            en mfa_sign_in {code} {name}
            en mfa_sign_in {code} {}
            en mfa_sign_in no code for {app}
            en mfa_sign_in {code} {code}
            en mfa_sign_in {code} {app} {app}
            en mfa_sign_in {code} {{app}}
            en mfa_sign_in {CODE}
            en mfa_sign_in {code} for {app}.
            """
        let parsed = SMSTemplates(parsing: table)
        let expected: [SMSTemplates.MalformedLine] = [
            .init(lineNumber: 4, error: .duplicate(firstLine: 3)),
            .init(lineNumber: 5, error: .extraSpace),
            .init(lineNumber: 6, error: .extraSpace),
            .init(lineNumber: 7, error: .extraSpace),
            .init(lineNumber: 8, error: .fieldCount(2)),
            .init(lineNumber: 9, error: .language("EN")),
            .init(lineNumber: 10, error: .language("english")),
            .init(lineNumber: 11, error: .language("zh-hant-tw")),
            .init(lineNumber: 12, error: .language("zh-han")),
            .init(lineNumber: 13, error: .kind("sign_in")),
            .init(lineNumber: 14, error: .controlCharacter),
            .init(lineNumber: 15, error: .unclosedBrace),
            .init(lineNumber: 16, error: .strayBrace),
            .init(lineNumber: 17, error: .unknownPlaceholder("name")),
            .init(lineNumber: 18, error: .unknownPlaceholder("")),
            .init(lineNumber: 19, error: .codeCount(0)),
            .init(lineNumber: 20, error: .codeCount(2)),
            .init(lineNumber: 21, error: .appCount(2)),
            .init(lineNumber: 22, error: .unclosedBrace),
            .init(lineNumber: 23, error: .unknownPlaceholder("CODE")),
        ]
        #expect(parsed.malformedLines == expected)
        #expect(parsed.templates.map(\.kind) == [.phoneSignIn, .mfaSignIn])
        let render = { (kind: SMSKind) in parsed.render(kind: kind, code: "9", appName: "Z", languageCode: "en").body }
        #expect(render(.mfaSignIn) == "9 for Z.")
        #expect(render(.phoneSignIn) == "9 is your code for Z.")
    }

    @Test func everyLineErrorExplainsItself() {
        let errors: [SMSTemplateLineError] = [
            .extraSpace, .fieldCount(2), .language("EN"), .kind("x"), .controlCharacter, .unclosedBrace, .strayBrace,
            .unknownPlaceholder("name"), .codeCount(0), .appCount(2), .duplicate(firstLine: 3),
        ]
        let descriptions = errors.map(\.description)
        #expect(Set(descriptions).count == errors.count)
        #expect(SMSTemplateLineError.duplicate(firstLine: 3).description.contains("line 3"))
        #expect(SMSTemplateLineError.kind("x").description.contains("mfa_enrollment"))
    }

    @Test func kindsEncodeAsTheWebhooksStrings() {
        #expect(SMSKind.allCases.map(\.rawValue) == ["phone_sign_in", "mfa_enrollment", "mfa_sign_in"])
    }

    /// The characters of the GSM 03.38 basic alphabet, which an SMS carries 160 to a message.
    static let gsmBasicCharacters = Set(
        "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿"
            + "abcdefghijklmnopqrstuvwxyzäöñüà")
}
