import TesseraCrypto
import Testing

@Suite("SecureRandom and ConstantTime")
struct SecureRandomTests {
    @Test func bytesHaveTheRequestedLengthAndDiffer() throws {
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
        let first = try SecureRandom.bytes(count: 32)
        let second = try SecureRandom.bytes(count: 32)
        #expect(first.count == 32)
        #expect(first != second)
    }

    /// Small draws come from a per-thread reserve refilled 512 bytes at a time: draws across many refills, of every
    /// length up to the largest the reserve serves and just past it, never repeat a byte sequence (which handing a
    /// reserved byte out twice, or a refill that failed to replace the reserve, would).
    @Test func drawsAcrossRefillsNeverRepeat() throws {
        var seen = Set<[UInt8]>()
        var drawn = 0
        for round in 0..<200 {
            for length in [16, 12, 32, 64, 65, 17 + round % 40] {
                let bytes = try SecureRandom.bytes(count: length)
                #expect(bytes.count == length)
                #expect(seen.insert(Array(bytes.prefix(16))).inserted)
                drawn += length
            }
        }
        #expect(drawn > 80 * 512)
    }

    /// Each thread has its own reserve: threads drawing at once never hand out the same bytes.
    @Test func threadsDrawDifferentBytes() async throws {
        let draws = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 {
                group.addTask { try (0..<500).map { _ in try SecureRandom.bytes(count: 16) } }
            }
            var all: [[UInt8]] = []
            for try await part in group { all += part }
            return all
        }
        #expect(draws.count == 4_000)
        #expect(Set(draws).count == draws.count)
    }

    @Test func badCountsAreRefused() {
        #expect(throws: CryptoError.invalidArgument("byte count -1 is negative")) {
            try SecureRandom.bytes(count: -1)
        }
        #expect(throws: CryptoError.invalidArgument("digit count 0 is less than 1")) {
            try SecureRandom.digits(count: 0)
        }
        #expect(throws: CryptoError.self) { try SecureRandom.token(byteCount: 8) }
    }

    @Test func uuidV4HasTheCanonicalForm() throws {
        for _ in 0..<50 {
            let uuid = try SecureRandom.uuidV4()
            let characters = Array(uuid)
            #expect(characters.count == 36)
            for (index, character) in characters.enumerated() {
                if [8, 13, 18, 23].contains(index) {
                    #expect(character == "-")
                } else {
                    #expect("0123456789abcdef".contains(character))
                }
            }
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
        }
        #expect(try SecureRandom.uuidV4() != SecureRandom.uuidV4())
    }

    @Test func identifiersAre128BitBase64URL() throws {
        let identifier = try SecureRandom.identifier()
        #expect(identifier.count == 22)
        #expect(try Base64URL.decode(identifier).count == 16)
        #expect(try Base64URL.decode(SecureRandom.token()).count == 32)
    }

    /// One in 64 used to start with `-`, which a command line reads as an option (a flaky CLI test found it).
    @Test func identifiersNeverStartWithADash() throws {
        for _ in 0..<5_000 { #expect(try !SecureRandom.identifier().hasPrefix("-")) }
    }

    @Test func digitsAreDecimalAndRoughlyUniform() throws {
        let code = try SecureRandom.digits(count: 6)
        #expect(code.count == 6)
        #expect(code.allSatisfy { $0.isASCII && $0.isNumber })
        var counts = [Int](repeating: 0, count: 10)
        for digit in try SecureRandom.digits(count: 20_000).utf8 { counts[Int(digit - UInt8(ascii: "0"))] += 1 }
        // Each digit is expected 2000 times with a standard deviation of about 42; 1700...2300 is over 7 sigma.
        for count in counts { #expect((1700...2300).contains(count), "\(counts)") }
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([], [0]))
        #expect(ConstantTime.equals([], []))
        #expect(ConstantTime.equals("secret", "secret"))
        #expect(!ConstantTime.equals("secret", "Secret"))
    }
}
