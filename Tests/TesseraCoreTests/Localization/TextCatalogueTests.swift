import TesseraTestSupport
import Testing

@testable import TesseraCore

/// The catalogues a translator edits: complete, consistent, well-formed; and the mails in the asked language.
@Suite struct TextCatalogueTests {
    static let catalogue = TextCatalogue.shared

    @Test(arguments: [Language.ja, .ru, .fr])
    func everyTableTranslatesTheSameKeysWithTheSamePlaceholders(_ language: Language) throws {
        #expect(Self.catalogue.malformed[language]?.map { "\($0.line): \($0.problem)" } == [])
        let table = try #require(Self.catalogue.translations[language])
        for other in [Language.ja, .ru, .fr] where other != language {
            let missing = Set(Self.catalogue.translations[other]?.keys ?? [:].keys).subtracting(table.keys)
            #expect(missing.sorted() == [], "\(language) lacks keys \(other) has")
        }
        for (key, translation) in table {
            #expect(Self.placeholders(key) == Self.placeholders(translation), "\(language): \(key)")
            #expect(!translation.isEmpty, "\(language): \(key)")
        }
    }

    @Test func aMalformedTableIsReportedLineByLine() {
        let catalogue = TextCatalogue(tables: [.fr: "Yes\n= Oui\n\nNo\n\n= Non\nYes\n= Encore\nDangling"])
        #expect(catalogue.malformed[.fr]?.map(\.line) == [4, 6, 8, 9])
        #expect(catalogue.translation(of: "Yes", in: .fr) == "Encore")
        #expect(catalogue.translation(of: "Maybe", in: .fr) == "Maybe")
    }

    @Test func placeholdersAndWaitsAreFilledInTheLanguage() {
        #expect(
            Texts(.ja)(LocalizedText("Too many attempts. Try again in {wait}.", wait: 900))
                == "試行回数が多すぎます。15分後にもう一度お試しください。")
        #expect(Texts(.ru).duration(7200) == "2 ч")
        #expect(Texts(.en).duration(1) == "1 second")
        #expect(
            Texts(.fr)("{client} asks to sign you out of this browser.", ["client": "Acme"])
                == "Acme demande à vous déconnecter de ce navigateur.")
    }

    @Test func mailsAreWrittenInTheAskedLanguageElseTheTenantsElseEnglish() async throws {
        try await CoreHarness.run { harness in
            let accounts = harness.services.accounts
            let address = CoreHarness.email()
            _ = try await accounts.signUp(
                email: address, password: "correct horse battery", displayName: nil, tenantID: nil)
            _ = try await accounts.sendPasswordReset(
                email: address, tenantID: nil, clientAddress: nil, languageCode: "ru-RU")
            try await waitUntil { harness.mail.sent.contains { $0.to == address } }
            let mail = try #require(harness.mail.sent.last { $0.to == address })
            #expect(mail.languageCode == "ru" && mail.subject == "Сброс пароля")
            #expect(mail.text.contains(mail.link) && mail.text.hasPrefix("Перейдите по ссылке"))
        }
    }

    static func placeholders(_ text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            found.append(String(rest[open...close]))
            rest = rest[rest.index(after: close)...]
        }
        return found.sorted()
    }
}
