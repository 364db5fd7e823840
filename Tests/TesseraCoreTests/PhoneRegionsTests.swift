import Testing

@testable import TesseraCore

/// The calling-code table (every line well-formed, no duplicates, prefix-free codes), the region of real numbers
/// of every region it names, unassigned codes, and the SMS region check with both kinds of configuration.
struct PhoneRegionsTests {
    /// One number per region of the table (mostly mobile ranges), the departures from libphonenumber and the ranges
    /// of the shared calling codes, each with the region it must resolve to. Tristan da Cunha's and Tokelau's numbers
    /// have 7 digits with the calling code, under the 8 of API §4: theirs here carry one digit more.
    static let examples: [(number: String, region: String)] = [
        ("+12125550100", "US"), ("+14165550100", "CA"), ("+18765550100", "JM"), ("+74951234567", "RU"),
        ("+77011234567", "KZ"), ("+441481123456", "GG"), ("+390669812345", "VA"), ("+35818123456", "AX"),
        ("+441534123456", "JE"), ("+441624612345", "IM"), ("+447624123456", "IM"), ("+447700312345", "JE"),
        ("+447700112345", "GB"), ("+447911112345", "GG"), ("+447911012345", "GB"), ("+76012345678", "KZ"),
        ("+78001234567", "RU"), ("+212528912345", "EH"), ("+212612345678", "MA"), ("+590590271234", "GP"),
        ("+590690301234", "GP"), ("+5997151234", "BQ"), ("+5994161234", "BQ"), ("+59995112345", "CW"),
        ("+262269601234", "YT"), ("+262692123456", "RE"), ("+61412345678", "AU"), ("+61851002123", "CC"),
        ("+61851001123", "CX"), ("+79123456789", "RU"), ("+3790612345", "VA"), ("+17875550100", "PR"),
        ("+19395550100", "PR"), ("+18095550100", "DO"), ("+18295550100", "DO"), ("+18495550100", "DO"),
        ("+16585550100", "JM"), ("+16005550100", "CA"), ("+18005550100", "US"), ("+12905550100", "US"),
        ("+4781234567", "NO"), ("+358401234567", "FI"), ("+29051234", "SH"), ("+24740142", "AC"), ("+376312342", "AD"),
        ("+971501234542", "AE"), ("+93701234542", "AF"), ("+12684641242", "AG"), ("+12642351242", "AI"),
        ("+355672123442", "AL"), ("+37477123442", "AM"), ("+244923123442", "AO"), ("+5491123456742", "AR"),
        ("+16847331242", "AS"), ("+43664123442", "AT"), ("+61412345642", "AU"), ("+2975601242", "AW"),
        ("+358181234542", "AX"), ("+994401234542", "AZ"), ("+38761123442", "BA"), ("+12462501242", "BB"),
        ("+8801812345642", "BD"), ("+32450001242", "BE"), ("+22670123442", "BF"), ("+35943012342", "BG"),
        ("+97336001242", "BH"), ("+25779561242", "BI"), ("+2290195123442", "BJ"), ("+14413701242", "BM"),
        ("+6737123442", "BN"), ("+59171234542", "BO"), ("+5993181242", "BQ"), ("+5511961234542", "BR"),
        ("+12423591242", "BS"), ("+97517123442", "BT"), ("+26771123442", "BW"), ("+375294911942", "BY"),
        ("+5016221242", "BZ"), ("+15062345642", "CA"), ("+61891621242", "CC"), ("+243991234542", "CD"),
        ("+23670012342", "CF"), ("+242061234542", "CG"), ("+41781234542", "CH"), ("+2250123456742", "CI"),
        ("+68271242", "CK"), ("+56221234542", "CL"), ("+237671234542", "CM"), ("+8613123456742", "CN"),
        ("+573211234542", "CO"), ("+50683123442", "CR"), ("+5351234542", "CU"), ("+2389911242", "CV"),
        ("+59995181242", "CW"), ("+61891641242", "CX"), ("+35796123442", "CY"), ("+420601123442", "CZ"),
        ("+4915123456742", "DE"), ("+25377831042", "DJ"), ("+4534412342", "DK"), ("+17672251242", "DM"),
        ("+18092345642", "DO"), ("+213551234542", "DZ"), ("+593991234542", "EC"), ("+37251234542", "EE"),
        ("+201001234542", "EG"), ("+212528812345", "EH"), ("+2917123442", "ER"), ("+34612345642", "ES"),
        ("+251911234542", "ET"), ("+358412345642", "FI"), ("+6797012342", "FJ"), ("+50051242", "FK"),
        ("+6913501242", "FM"), ("+298211242", "FO"), ("+33612345642", "FR"), ("+24106031242", "GA"),
        ("+447400123442", "GB"), ("+14734031242", "GD"), ("+995555123442", "GE"), ("+594694201242", "GF"),
        ("+447781123442", "GG"), ("+233231234542", "GH"), ("+35057123442", "GI"), ("+299221242", "GL"),
        ("+2203012342", "GM"), ("+224601123442", "GN"), ("+590690001242", "GP"), ("+240222123442", "GQ"),
        ("+306912345642", "GR"), ("+50251234542", "GT"), ("+16713001242", "GU"), ("+245955012342", "GW"),
        ("+5926091242", "GY"), ("+85251234542", "HK"), ("+50491234542", "HN"), ("+385921234542", "HR"),
        ("+50934101242", "HT"), ("+36201234542", "HU"), ("+62812345642", "ID"), ("+353850123442", "IE"),
        ("+972502345642", "IL"), ("+447924123456", "IM"), ("+918123456742", "IN"), ("+2463801242", "IO"),
        ("+9647912345642", "IQ"), ("+989123456742", "IR"), ("+3546111242", "IS"), ("+393123456742", "IT"),
        ("+447797712342", "JE"), ("+18762101242", "JM"), ("+962790123442", "JO"), ("+819012345642", "JP"),
        ("+254712123442", "KE"), ("+996700123442", "KG"), ("+85591234542", "KH"), ("+68672001242", "KI"),
        ("+2693212342", "KM"), ("+18697652942", "KN"), ("+8501921234542", "KP"), ("+821020000042", "KR"),
        ("+96550012342", "KW"), ("+13453231242", "KY"), ("+77710009942", "KZ"), ("+8562023123442", "LA"),
        ("+96171123442", "LB"), ("+17582845642", "LC"), ("+423660234542", "LI"), ("+94712345642", "LK"),
        ("+231770123442", "LR"), ("+26650123442", "LS"), ("+37061234542", "LT"), ("+352628123442", "LU"),
        ("+37121234542", "LV"), ("+218912345642", "LY"), ("+212650123442", "MA"), ("+377612345642", "MC"),
        ("+37362112342", "MD"), ("+38260123442", "ME"), ("+261321234542", "MG"), ("+6922351242", "MH"),
        ("+38972345642", "MK"), ("+22365012342", "ML"), ("+9592123442", "MM"), ("+97688123442", "MN"),
        ("+85366123442", "MO"), ("+16702345642", "MP"), ("+596696201242", "MQ"), ("+22222123442", "MR"),
        ("+16644923442", "MS"), ("+35696961242", "MT"), ("+23052512342", "MU"), ("+9607712342", "MV"),
        ("+265991234542", "MW"), ("+522221234542", "MX"), ("+60123456742", "MY"), ("+258821234542", "MZ"),
        ("+264811234542", "NA"), ("+687751242", "NC"), ("+22793123442", "NE"), ("+672381242", "NF"),
        ("+2348021234542", "NG"), ("+50581234542", "NI"), ("+31612345642", "NL"), ("+4740612342", "NO"),
        ("+9779841234542", "NP"), ("+6745551242", "NR"), ("+6838884042", "NU"), ("+64211234542", "NZ"),
        ("+96892123442", "OM"), ("+50761234542", "PA"), ("+51912345642", "PE"), ("+68987123442", "PF"),
        ("+67570123442", "PG"), ("+639051234542", "PH"), ("+923012345642", "PK"), ("+48512345642", "PL"),
        ("+508551242", "PM"), ("+17872345642", "PR"), ("+970599123442", "PS"), ("+351912345642", "PT"),
        ("+6806201242", "PW"), ("+595961456742", "PY"), ("+97433123442", "QA"), ("+262692123442", "RE"),
        ("+40712034542", "RO"), ("+381601234542", "RS"), ("+79123456742", "RU"), ("+250720123442", "RW"),
        ("+966512345642", "SA"), ("+6777421242", "SB"), ("+2482510142", "SC"), ("+249911231242", "SD"),
        ("+46701234542", "SE"), ("+6581234542", "SG"), ("+29051242", "SH"), ("+38631234542", "SI"),
        ("+4779123442", "SJ"), ("+421912123442", "SK"), ("+23225123442", "SL"), ("+37866661242", "SM"),
        ("+221701234542", "SN"), ("+25271123442", "SO"), ("+5977412342", "SR"), ("+211977123442", "SS"),
        ("+2399812342", "ST"), ("+50370123442", "SV"), ("+17215205642", "SX"), ("+963944567842", "SY"),
        ("+26876123442", "SZ"), ("+29089420", "TA"), ("+16492311242", "TC"), ("+23563012342", "TD"),
        ("+22890112342", "TG"), ("+66812345642", "TH"), ("+992917123442", "TJ"), ("+69072420", "TK"),
        ("+67077212342", "TL"), ("+99366123442", "TM"), ("+21620123442", "TN"), ("+6767715142", "TO"),
        ("+905012345642", "TR"), ("+18682911242", "TT"), ("+688901242", "TV"), ("+886912345642", "TW"),
        ("+255621234542", "TZ"), ("+380501234542", "UA"), ("+256712345642", "UG"), ("+12015550142", "US"),
        ("+59894231242", "UY"), ("+998912345642", "UZ"), ("+390669812342", "VA"), ("+17844301242", "VC"),
        ("+584121234542", "VE"), ("+12843001242", "VG"), ("+13406421242", "VI"), ("+84912345642", "VN"),
        ("+6785912342", "VU"), ("+681821242", "WF"), ("+6857212342", "WS"), ("+38343201242", "XK"),
        ("+967712345642", "YE"), ("+262639012342", "YT"), ("+27711234542", "ZA"), ("+260955123442", "ZM"),
        ("+263712345642", "ZW"), ("+80012345642", "001"), ("+80812345642", "001"), ("+870301234542", "001"),
        ("+878101234567842", "001"), ("+881612345642", "001"), ("+8823421242", "001"), ("+883510012342", "001"),
        ("+88812345678942", "001"), ("+979123456742", "001"),
    ]

    /// The non-geographic calling codes, region `001`.
    static let nonGeographicCodes: Set = ["800", "808", "870", "878", "881", "882", "883", "888", "979"]

    let index = CallingCodeIndex(parsing: CallingCodeTable.text)

    // MARK: The table

    @Test func everyLineOfTheTableParses() {
        #expect(index.malformedLines == [])
        let lines = CallingCodeTable.text.split(separator: "\n", omittingEmptySubsequences: false)
        let entryLines = lines.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(index.entries.count == entryLines.count)
        #expect(index.entries.count > 350)
        for line in entryLines {
            #expect(throws: Never.self, "\(line)") { _ = try CallingCodeEntry(line: line) }
        }
    }

    @Test func noCallingCodeAndLeadingDigitsAreListedTwice() {
        var seen: Set<String> = []
        for entry in index.entries {
            let key = "\(entry.callingCode) \(entry.leadingDigits)"
            #expect(seen.insert(key).inserted, "duplicate entry \(key)")
        }
    }

    @Test func everyRegionIsTwoCapitalLettersOrNonGeographic() {
        for entry in index.entries {
            let isLetters =
                entry.region.utf8.count == 2
                && entry.region.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
            #expect(isLetters || entry.region == "001", "\(entry)")
        }
        let nonGeographic = Set(index.entries.filter { $0.region == "001" }.map(\.callingCode))
        #expect(nonGeographic == Self.nonGeographicCodes)
    }

    @Test func everyCallingCodeHasAWholeCodeEntryAndNoneStartsAnother() {
        let codes = Set(index.entries.map(\.callingCode))
        let wholeCodes = Set(index.entries.filter { $0.leadingDigits.isEmpty }.map(\.callingCode))
        #expect(wholeCodes == codes)
        for code in codes {
            for other in codes where other != code {
                #expect(!other.hasPrefix(code), "calling code \(code) starts \(other)")
            }
        }
        #expect(codes.count > 210)
    }

    @Test func everyEntryResolvesItsOwnRange() {
        for entry in index.entries {
            let prefix = entry.callingCode + entry.leadingDigits
            let digits = prefix + String(repeating: "0", count: 12 - prefix.count)
            #expect(index.region(ofDigits: digits[...]) == entry.region, "\(entry)")
            #expect(PhoneRegions.region(of: "+" + digits) == entry.region, "\(entry)")
        }
    }

    // MARK: The parser

    @Test(arguments: [
        ("1", CallingCodeLineError.fieldCount(1)),
        ("1 876 JM x", .fieldCount(4)),
        ("1  US", .extraSpace),
        (" 1 US", .extraSpace),
        ("1 US ", .extraSpace),
        ("1 876  JM", .extraSpace),
        (" ", .extraSpace),
        ("1\tUS", .fieldCount(1)),
        ("01 US", .callingCode("01")),
        ("1234 US", .callingCode("1234")),
        ("+1 US", .callingCode("+1")),
        ("1a US", .callingCode("1a")),
        ("1 8a6 JM", .leadingDigits("8a6")),
        ("1 123456789 JM", .leadingDigits("123456789")),
        ("1 876 jm", .region("jm")),
        ("1 876 JMX", .region("JMX")),
        ("1 876 J", .region("J")),
        ("800 002", .region("002")),
        ("44 1481 ÉG", .region("ÉG")),
    ])
    func malformedLinesAreRejected(line: String, error: CallingCodeLineError) {
        #expect(throws: error) { try CallingCodeEntry(line: line[...]) }
    }

    @Test func commentsAndBlankLinesAreSkippedAndBadLinesRecorded() {
        let parsed = CallingCodeIndex(parsing: "# a comment\n\n44 GB\n44 1481 GG\n44 14x1 JE\n44 1481 JE\nx\n")
        #expect(parsed.entries.map(\.region) == ["GB", "GG", "JE"])
        #expect(
            parsed.malformedLines == [
                CallingCodeIndex.MalformedLine(lineNumber: 5, error: .leadingDigits("14x1")),
                CallingCodeIndex.MalformedLine(lineNumber: 7, error: .fieldCount(1)),
            ])
        #expect(parsed.region(ofDigits: "441481123456") == "GG", "the first of duplicate entries wins")
        #expect(parsed.region(ofDigits: "442071234567") == "GB")
        #expect(parsed.region(ofDigits: "3312345678") == nil)
    }

    @Test func anErrorNamesTheRuleBroken() {
        #expect("\(CallingCodeLineError.region("jm"))" == "region \"jm\" is neither two upper-case letters nor 001")
        #expect("\(CallingCodeLineError.fieldCount(4))" == "expected 2 or 3 fields separated by single spaces, found 4")
    }

    // MARK: Regions

    @Test func everyExampleNumberHasItsRegion() {
        for (number, region) in Self.examples {
            #expect(PhoneRegions.region(of: number) == region, "\(number)")
        }
    }

    @Test func everyRegionOfTheTableHasAnExampleAndNoExampleIsOutsideIt() {
        let tableRegions = Set(index.entries.map(\.region))
        let exampleRegions = Set(Self.examples.map(\.region))
        #expect(tableRegions.subtracting(exampleRegions) == [])
        #expect(exampleRegions.subtracting(tableRegions) == [])
        #expect(Self.examples.count >= 250)
    }

    @Test func everyNonGeographicCodeIsRegion001() {
        for code in Self.nonGeographicCodes {
            #expect(PhoneRegions.region(of: "+\(code)12345678") == "001", "+\(code)")
        }
    }

    @Test(arguments: [
        "+99912345678", "+99012345678", "+99712345678", "+28012345678", "+28912345678", "+21012345678",
        "+25912345678", "+29212345678", "+38412345678", "+38812345678", "+42212345678", "+80112345678",
        "+87512345678", "+89012345678", "+96912345678", "+99112345678", "+6991234567", "+8351234567",
    ])
    func anUnassignedCallingCodeHasNoRegion(number: String) {
        #expect(PhoneRegions.region(of: number) == nil)
    }

    @Test(arguments: [
        "", "+", "12125550100", "+1212555", "+1234567890123456", "+02125550100", "+1 212 555 0100",
        "+1-212-555-0100", "+1(212)5550100", " +12125550100", "+12125550100 ", "+12125550100\n", "++12125550100",
        "\u{FF0B}12125550100", "+\u{0661}\u{0662}\u{0661}\u{0662}5550100", "+1212555010x", "+1212555\u{0}0100",
    ])
    func aNumberThatIsNotStrictE164HasNoRegion(number: String) {
        #expect(PhoneRegions.region(of: number) == nil)
    }

    // MARK: The SMS region check

    static let notE164 = AuthError(
        .invalidPhoneNumber, "phone number must be E.164: + then 8 to 15 digits, the first not 0"
    )
    static let denied = AuthError(.invalidPhoneNumber, "region not allowed")

    @Test func allowByDefaultDeniesOnlyTheListedRegions() throws {
        let config = SMSRegionConfig.allowByDefault(disallowedRegions: ["GG", "KZ"])
        #expect(throws: Self.denied) { try PhoneRegions.check("+441481123456", against: config) }
        #expect(throws: Self.denied) { try PhoneRegions.check("+447781123456", against: config) }
        #expect(throws: Self.denied) { try PhoneRegions.check("+77011234567", against: config) }
        try PhoneRegions.check("+442071234567", against: config)
        try PhoneRegions.check("+74951234567", against: config)
        try PhoneRegions.check("+12125550100", against: config)
        try PhoneRegions.check("+99912345678", against: config)
        try PhoneRegions.check("+80012345678", against: config)
    }

    @Test func allowAllAllowsEveryE164Number() throws {
        for number in ["+12125550100", "+99912345678", "+88212345678", "+590690301234"] {
            try PhoneRegions.check(number, against: .allowAll)
        }
    }

    @Test func allowlistOnlyAllowsOnlyTheListedRegions() throws {
        let config = SMSRegionConfig.allowlistOnly(allowedRegions: ["US", "CA", "KZ"])
        try PhoneRegions.check("+12125550100", against: config)
        try PhoneRegions.check("+14165550100", against: config)
        try PhoneRegions.check("+77011234567", against: config)
        #expect(throws: Self.denied) { try PhoneRegions.check("+18765550100", against: config) }
        #expect(throws: Self.denied) { try PhoneRegions.check("+74951234567", against: config) }
        #expect(throws: Self.denied) { try PhoneRegions.check("+442071234567", against: config) }
    }

    @Test func allowlistOnlyDeniesUnknownAndNonGeographicNumbers() {
        let config = SMSRegionConfig.allowlistOnly(allowedRegions: ["US"])
        #expect(throws: Self.denied) { try PhoneRegions.check("+99912345678", against: config) }
        #expect(throws: Self.denied) { try PhoneRegions.check("+28012345678", against: config) }
        #expect(throws: Self.denied) { try PhoneRegions.check("+80012345678", against: config) }
        #expect(throws: Self.denied) { try PhoneRegions.check("+88212345678", against: config) }
    }

    @Test func anEmptyAllowlistDeniesEveryNumber() {
        for number in ["+12125550100", "+442071234567", "+99912345678"] {
            #expect(throws: Self.denied) { try PhoneRegions.check(number, against: .allowlistOnly(allowedRegions: [])) }
        }
    }

    @Test func saintBarthelemyAndSaintMartinAreCheckedAsGuadeloupe() throws {
        try PhoneRegions.check("+590690301234", against: .allowlistOnly(allowedRegions: ["GP"]))
        #expect(throws: Self.denied) {
            try PhoneRegions.check("+590590271234", against: .allowlistOnly(allowedRegions: ["BL", "MF"]))
        }
    }

    @Test(arguments: [
        "", "+", "12125550100", "+1212555", "+1234567890123456", "+02125550100", "+1 212 555 0100",
        "+12125550100 ", "\u{FF0B}12125550100", "+1212555010x",
    ])
    func aNumberThatIsNotStrictE164IsInvalidWhateverTheConfig(number: String) {
        #expect(throws: Self.notE164) { try PhoneRegions.check(number, against: .allowAll) }
        #expect(throws: Self.notE164) { try PhoneRegions.check(number, against: .allowlistOnly(allowedRegions: [])) }
        #expect(throws: Self.notE164) {
            try PhoneRegions.check(number, against: .allowByDefault(disallowedRegions: ["US"]))
        }
    }

    @Test func theErrorDetailNeverContainsTheNumber() {
        for number in ["+441481123456", "+4414811234x6"] {
            do {
                try PhoneRegions.check(number, against: .allowlistOnly(allowedRegions: []))
                Issue.record("\(number) passed an empty allowlist")
            } catch {
                #expect(error.reason == .invalidPhoneNumber)
                #expect(!error.detail.contains("1481"))
            }
        }
    }
}
