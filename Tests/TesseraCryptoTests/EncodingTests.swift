import TesseraCrypto
import TesseraTestSupport
import Testing

@Suite("Base64URL, Base64 and Base32")
struct EncodingTests {
    struct RFC4648Vectors: Decodable {
        struct Vector: Decodable {
            let ascii: String
            let base32: String
            // swift-format-ignore: AlwaysUseLowerCamelCase
            let base64url_nopad: String
        }
        let vectors: [Vector]
    }

    @Test func rfc4648VectorsFromTheSharedFolder() throws {
        let file = try SharedVectors.load("rfc4648-base32.json", as: RFC4648Vectors.self)
        try #require(file.vectors.count >= 7)
        for vector in file.vectors {
            let bytes = Array(vector.ascii.utf8)
            let unpadded = String(vector.base32.prefix { $0 != "=" })
            #expect(Base32.encode(bytes) == unpadded)
            #expect(try Base32.decode(vector.base32) == bytes)
            #expect(try Base32.decode(unpadded) == bytes)
            #expect(try Base32.decode(vector.base32.lowercased()) == bytes)
            #expect(Base64URL.encode(bytes) == vector.base64url_nopad)
            #expect(try Base64URL.decode(vector.base64url_nopad) == bytes)
        }
    }

    @Test func roundTripsEveryLength() throws {
        for length in 0...40 {
            let bytes = try SecureRandom.bytes(count: length)
            #expect(try Base32.decode(Base32.encode(bytes)) == bytes)
            #expect(try Base64URL.decode(Base64URL.encode(bytes)) == bytes)
            #expect(try Base64.decode(Base64.encode(bytes)) == bytes)
            #expect(try Base64.decode(Base64.encode(bytes, padded: false)) == bytes)
            #expect(!Base64URL.encode(bytes).contains("="))
            #expect(!Base32.encode(bytes).contains("="))
        }
    }

    /// A slice encodes as the array of its bytes does, wherever it starts in its array.
    @Test func aSliceEncodesAsItsBytes() throws {
        let bytes = try SecureRandom.bytes(count: 40)
        for start in 0..<8 {
            for end in [start, start + 1, start + 16, 40] {
                #expect(Base64URL.encode(bytes[start..<end]) == Base64URL.encode(Array(bytes[start..<end])))
            }
        }
    }

    @Test func base64URLAcceptsPaddingAndUsesTheURLAlphabet() throws {
        #expect(try Base64URL.decode("Zg==") == Array("f".utf8))
        #expect(try Base64URL.decode("Zm8=") == Array("fo".utf8))
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(try Base64URL.decode("-_8") == [0xFB, 0xFF])
    }

    /// The spelling `encode` writes is the only one `decodeUnpadded` takes: the other spellings `decode` allows (with
    /// padding) are refused, and so is whatever `decode` refuses.
    @Test func base64URLUnpaddedTakesOnlyTheEncodersSpelling() throws {
        #expect(try Base64URL.decodeUnpadded("Zg") == Array("f".utf8))
        #expect(try Base64URL.decodeUnpadded("Zm8") == Array("fo".utf8))
        #expect(try Base64URL.decodeUnpadded("") == [])
        for padded in ["Zg==", "Zm8=", "Zg=", "===="] {
            #expect(throws: EncodedTextError.invalidPadding) { try Base64URL.decodeUnpadded(padded) }
        }
        #expect(throws: EncodedTextError.nonZeroTrailingBits) { try Base64URL.decodeUnpadded("Zh") }
        #expect(throws: EncodedTextError.invalidCharacter(offset: 0)) { try Base64URL.decodeUnpadded("+/8") }
    }

    @Test(arguments: [
        ("Zg=", EncodedTextError.invalidPadding),
        ("Zg===", .invalidPadding),
        ("Zm9v====", .invalidPadding),
        ("Z=g=", .invalidCharacter(offset: 1)),
        ("Z", .invalidLength(1)),
        ("Zm9vY", .invalidLength(5)),
        ("Zh", .nonZeroTrailingBits),
        ("Zm9", .nonZeroTrailingBits),
        ("Zm9vYh", .nonZeroTrailingBits),
        ("Zm9vYmF", .nonZeroTrailingBits),
        ("Zm9vYm.y", .invalidCharacter(offset: 6)),
        ("+/8", .invalidCharacter(offset: 0)),
        ("Zm9v/w", .invalidCharacter(offset: 4)),
        ("Zm 9v", .invalidCharacter(offset: 2)),
        ("Zm9v\n", .invalidCharacter(offset: 4)),
        ("Zm9vé", .invalidCharacter(offset: 4)),
        ("====", .invalidPadding),
        // A character outside the alphabet is named before a wrong length or stray bits, wherever it is.
        ("Zm9v.", .invalidCharacter(offset: 4)),
        ("Zm9vZ.9", .invalidCharacter(offset: 5)),
        ("Zm9vZm9vZm9vZm9vZm9vZm9vZm9vZm9vZm.vZh", .invalidCharacter(offset: 34)),
        ("Zm9vZm9v+m9vZm9vZm9v/m9v", .invalidCharacter(offset: 8)),
    ])
    func base64URLRefusesInvalidText(text: String, error: EncodedTextError) {
        #expect(throws: error) { try Base64URL.decode(text) }
    }

    @Test func base64UsesTheStandardAlphabet() throws {
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
        #expect(Base64.encode([0xFB, 0xFF], padded: false) == "+/8")
        #expect(try Base64.decode("+/8=") == [0xFB, 0xFF])
        #expect(throws: EncodedTextError.invalidCharacter(offset: 0)) { try Base64.decode("-_8") }
        #expect(throws: EncodedTextError.invalidLength(1)) { try Base64.decode("A") }
        #expect(throws: EncodedTextError.nonZeroTrailingBits) { try Base64.decode("/9") }
    }

    /// Bytes in a slice that does not start at zero decode as the same text does, and fail with its offsets.
    @Test func base64DecodesUTF8InASliceAsItsText() throws {
        let bytes = Array("..+/8=".utf8)
        #expect(try Base64.decode(utf8: bytes[2...]) == [0xFB, 0xFF])
        #expect(throws: EncodedTextError.invalidCharacter(offset: 0)) { try Base64.decode(utf8: bytes[1...]) }
        #expect(throws: EncodedTextError.invalidLength(1)) { try Base64.decode(utf8: Array("xxA".utf8)[2...]) }
    }

    @Test(arguments: [
        ("M", EncodedTextError.invalidLength(1)),
        ("MZX", .invalidLength(3)),
        ("MZXW6Y", .invalidLength(6)),
        ("MY=", .invalidPadding),
        ("MY=====", .invalidPadding),
        ("MY=======", .invalidPadding),
        ("MZXW6YQ==", .invalidPadding),
        ("MZXW6==", .invalidPadding),
        ("MZ", .nonZeroTrailingBits),
        ("MZXR", .nonZeroTrailingBits),
        ("M1", .invalidCharacter(offset: 1)),
        ("M8", .invalidCharacter(offset: 1)),
        ("MY ", .invalidCharacter(offset: 2)),
        ("MZ=XW6===", .invalidCharacter(offset: 2)),
        ("========", .invalidPadding),
    ])
    func base32RefusesInvalidText(text: String, error: EncodedTextError) {
        #expect(throws: error) { try Base32.decode(text) }
    }

    @Test func base32AcceptsMixedCaseAndEncodesA160BitSecretIn32Characters() throws {
        #expect(try Base32.decode("mZxW6yTb") == Array("fooba".utf8))
        let secret = try SecureRandom.bytes(count: 20)
        let encoded = Base32.encode(secret)
        #expect(encoded.count == 32)
        #expect(encoded == encoded.uppercased())
    }
}
