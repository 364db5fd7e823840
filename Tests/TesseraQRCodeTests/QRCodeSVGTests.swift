import Testing

@testable import TesseraQRCode

@Suite("QR code SVG")
struct QRCodeSVGTests {
    static let otpauthURI =
        "otpauth://totp/Tessera%20Example:alice.wonderland%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
        + "&issuer=Tessera%20Example&algorithm=SHA1&digits=6&period=30"

    /// Every dark module the path data `d` draws, as (x, y) in drawing units; refuses anything but the
    /// `M x y h n v 1 h -n z` rectangles the renderer promises.
    static func darkCells(ofPath d: String) throws -> Set<[Int]> {
        var cells: Set<[Int]> = []
        for rectangle in d.split(separator: "z") {
            let numbers = rectangle.split(whereSeparator: { "Mhv ".contains($0) }).compactMap { Int($0) }
            try #require(rectangle.first == "M" && numbers.count == 5, "\(rectangle)")
            let (x, y, run) = (numbers[0], numbers[1], numbers[2])
            try #require(run > 0 && numbers[3] == 1 && numbers[4] == -run, "\(rectangle)")
            for column in x..<x + run { cells.insert([column, y]) }
        }
        return cells
    }

    /// The text between `prefix` and the next `"` in `svg`.
    static func attribute(_ prefix: String, in svg: String) throws -> String {
        let start = try #require(svg.firstRange(of: prefix)).upperBound
        return String(svg[start...].prefix { $0 != "\"" })
    }

    static func occurrences(of needle: String, in svg: String) -> Int {
        svg.ranges(of: needle).count
    }

    @Test func shortTextIsAWellFormedVersion1SVG() throws {
        let svg = try QRCodeSVG.render("hello")
        let head =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 29 29\" width=\"116\" height=\"116\" "
            + "role=\"img\" aria-label=\"QR code\"><rect width=\"29\" height=\"29\" fill=\"#ffffff\"/>"
            + "<path fill=\"#000000\" shape-rendering=\"crispEdges\" d=\"M4 4h7v1h-7z"
        #expect(svg.hasPrefix(head))
        #expect(svg.hasSuffix("\"/></svg>"))
        #expect(Self.occurrences(of: "<path", in: svg) == 1)
        #expect(Self.occurrences(of: "<rect", in: svg) == 1)
        #expect(Self.occurrences(of: "<svg", in: svg) == 1)
        #expect(Self.occurrences(of: "</svg>", in: svg) == 1)
        #expect(Self.occurrences(of: "<", in: svg) == 4)
    }

    @Test func theSVGHoldsOnlyItsThreeElementsAndTheirAttributes() throws {
        let svg = try QRCodeSVG.render(Self.otpauthURI)
        let elements = svg.matches(of: /<\/?([A-Za-z:-]+)/).map { String($0.output.1) }
        #expect(elements == ["svg", "rect", "path", "svg"])
        let attributes = Set(svg.matches(of: /\s([A-Za-z:-]+)="/).map { String($0.output.1) })
        let allowed: Set = [
            "xmlns", "viewBox", "width", "height", "role", "aria-label", "fill", "shape-rendering", "d",
        ]
        #expect(attributes == allowed)
        // The only URL is the SVG namespace; no script, style, link, entity or event handler can hide in the values.
        #expect(svg.ranges(of: "http").count == 1)
        for forbidden in ["&", "url(", "javascript", "script", "style", "href", "<!", "<?"] {
            #expect(!svg.contains(forbidden), "\(forbidden)")
        }
        #expect(!svg.contains("otpauth"))
        #expect(!svg.contains("JBSWY3DP"))
    }

    @Test(arguments: [(1, 0), (1, 4), (4, 4), (10, 2), (64, 64)])
    func sizeFollowsTheVersionModuleSizeAndQuietZone(moduleSize: Int, quietZone: Int) throws {
        let svg = try QRCodeSVG.render("hello", moduleSize: moduleSize, quietZone: quietZone)
        let side = 21 + 2 * quietZone
        #expect(try Self.attribute("viewBox=\"", in: svg) == "0 0 \(side) \(side)")
        #expect(try Self.attribute("width=\"", in: svg) == "\(side * moduleSize)")
        #expect(try Self.attribute("height=\"", in: svg) == "\(side * moduleSize)")
    }

    @Test func longerTextsGetLargerVersions() throws {
        let uri = try QRCodeSVG.modules(Self.otpauthURI)
        let reader = try QRMatrixReader(uri)
        // Level M in byte mode: version 8 holds 152 bytes, version 9 holds 180.
        #expect(Self.otpauthURI.utf8.count == 162)
        #expect(reader.version == 9)
        let svg = try QRCodeSVG.render(Self.otpauthURI, moduleSize: 3, quietZone: 4)
        let side = reader.size + 8
        #expect(try Self.attribute("viewBox=\"", in: svg) == "0 0 \(side) \(side)")
        #expect(try Self.attribute("width=\"", in: svg) == "\(side * 3)")
        let versions = [("a", 1), (String(repeating: "a", count: 14), 1), (String(repeating: "a", count: 15), 2)]
        for (text, version) in versions {
            #expect(try QRMatrixReader(QRCodeSVG.modules(text)).version == version, "\(text.count) bytes")
        }
    }

    @Test(arguments: [0, 4, 7])
    func thePathDrawsExactlyTheDarkModules(quietZone: Int) throws {
        for text in ["hello", Self.otpauthURI] {
            let matrix = try QRCodeSVG.modules(text)
            let svg = try QRCodeSVG.render(text, moduleSize: 2, quietZone: quietZone)
            let path = try Self.darkCells(ofPath: Self.attribute(" d=\"", in: svg))
            var expected: Set<[Int]> = []
            for (y, row) in matrix.enumerated() {
                for (x, dark) in row.enumerated() where dark { expected.insert([x + quietZone, y + quietZone]) }
            }
            #expect(path == expected)
            // Runs are merged: no rectangle ends where the next one on its row starts.
            let d = try Self.attribute(" d=\"", in: svg)
            #expect(Self.occurrences(of: "M", in: d) < expected.count)
        }
    }

    @Test func theSameInputGivesTheSameOutput() throws {
        #expect(try QRCodeSVG.render(Self.otpauthURI) == QRCodeSVG.render(Self.otpauthURI))
        #expect(try QRCodeSVG.render("hello") != QRCodeSVG.render("Hello"))
        #expect(try QRCodeSVG.render("hello") != QRCodeSVG.render("hello", moduleSize: 5))
    }

    @Test func everySymbolHasThreeFinderPatternsAndLevelM() throws {
        let texts = [
            "a", "hello", "HELLO WORLD", "12345678", Self.otpauthURI, "ünïcödé ✓ 🔐",
            String(repeating: "x", count: 500), String(repeating: "y", count: QRCodeSVG.maximumByteCount),
        ]
        for text in texts {
            let reader = try QRMatrixReader(QRCodeSVG.modules(text))
            let far = reader.size - 7
            #expect(reader.hasFinderPattern(x: 0, y: 0), "top left, \(text.utf8.count) bytes")
            #expect(reader.hasFinderPattern(x: far, y: 0), "top right, \(text.utf8.count) bytes")
            #expect(reader.hasFinderPattern(x: 0, y: far), "bottom left, \(text.utf8.count) bytes")
            #expect(!reader.hasFinderPattern(x: far, y: far), "bottom right, \(text.utf8.count) bytes")
            #expect(try reader.formatInformation().errorCorrection == 0, "level M, \(text.utf8.count) bytes")
        }
    }

    @Test(arguments: [
        "a", "hello", "Hello, World!", "HELLO WORLD", "0123456789", "https://example.com/x", "ünïcödé ✓",
        "otpauth://totp/A:b?secret=JBSWY3DPEHPK3PXP", String(repeating: "z", count: 42),
    ])
    func theMatrixReadsBackAsTheText(text: String) throws {
        let reader = try QRMatrixReader(QRCodeSVG.modules(text))
        // Byte mode keeps the case and every byte, digits and upper case included (no alphanumeric segments).
        #expect(try reader.byteModeText() == text)
    }

    @Test func theReaderNoticesAChangedModule() throws {
        let original = try QRCodeSVG.modules("hello")
        // The bottom right module is the mode indicator's first bit: the payload is no longer byte mode.
        var mode = original
        mode[20][20].toggle()
        #expect(throws: QRMatrixReader.Unreadable.self) { try QRMatrixReader(mode).byteModeText() }
        // (19, 12) is bit 17 of the stream, the 0x04 bit of the first byte: "h" (0x68) becomes "l" (0x6C).
        var letter = original
        letter[12][19].toggle()
        #expect(try QRMatrixReader(letter).byteModeText() == "lello")
        var format = try QRCodeSVG.modules("hello")
        format[8][0].toggle()
        #expect(throws: QRMatrixReader.Unreadable.self) { try QRMatrixReader(format).formatInformation() }
    }

    @Test func badInputIsRefused() {
        #expect(throws: QRCodeError.emptyText) { try QRCodeSVG.render("") }
        #expect(throws: QRCodeError.textContainsNul) { try QRCodeSVG.render("a\u{0}b") }
        let tooLong = String(repeating: "a", count: QRCodeSVG.maximumByteCount + 1)
        #expect(throws: QRCodeError.textTooLong(byteCount: 2001, limit: 2000)) { try QRCodeSVG.render(tooLong) }
        let multiByte = String(repeating: "é", count: 1001)
        #expect(throws: QRCodeError.textTooLong(byteCount: 2002, limit: 2000)) { try QRCodeSVG.modules(multiByte) }
        for size in [0, -1, 65, Int.max, Int.min] {
            #expect(throws: QRCodeError.moduleSizeOutOfRange(size)) { try QRCodeSVG.render("a", moduleSize: size) }
        }
        for zone in [-1, 65, Int.max, Int.min] {
            #expect(throws: QRCodeError.quietZoneOutOfRange(zone)) { try QRCodeSVG.render("a", quietZone: zone) }
        }
    }

    @Test func errorsSayWhatIsWrongWithoutTheText() {
        #expect(QRCodeError.encodingFailed(errno: 34).description.contains("errno 34"))
        #expect(QRCodeError.textTooLong(byteCount: 2001, limit: 2000).description.contains("2001"))
        #expect(!QRCodeError.emptyText.description.isEmpty)
    }
}
