import TesseraCrypto
import TesseraTestSupport
import Testing

@Suite("One-time passwords (RFC 4226, RFC 6238)")
struct OneTimePasswordTests {
    struct TOTPVectors: Decodable {
        struct Vector: Decodable {
            let time: Int64
            let algorithm: String
            let secretAscii: String
            let digits: Int
            let period: Int
            let code: String
        }
        let vectors: [Vector]
    }

    /// The RFC 4226 Appendix D secret.
    static let rfc4226Secret = Array("12345678901234567890".utf8)

    @Test func rfc6238VectorsOfEveryAlgorithm() throws {
        let file = try SharedVectors.load("rfc6238-totp.json", as: TOTPVectors.self)
        try #require(file.vectors.count == 18)
        var algorithmsSeen: Set<String> = []
        for vector in file.vectors {
            let algorithm = try #require(OTPAlgorithm(rawValue: vector.algorithm), "\(vector.algorithm)")
            algorithmsSeen.insert(algorithm.rawValue)
            let password = try OneTimePassword(
                secret: Array(vector.secretAscii.utf8), algorithm: algorithm, digits: vector.digits,
                period: vector.period
            )
            #expect(try password.code(at: vector.time) == vector.code, "\(vector.algorithm) at \(vector.time)")
            let step = password.step(at: vector.time)
            #expect(step == vector.time / Int64(vector.period))
            #expect(try password.hotp(counter: UInt64(step)) == vector.code)
            #expect(try password.matchingStep(vector.code, at: vector.time, window: 0) == step)
        }
        #expect(algorithmsSeen == Set(OTPAlgorithm.allCases.map(\.rawValue)))
    }

    @Test func rfc4226AppendixDHOTPValues() throws {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489",
        ]
        let password = try OneTimePassword(secret: Self.rfc4226Secret)
        for (counter, code) in expected.enumerated() {
            #expect(try password.hotp(counter: UInt64(counter)) == code, "counter \(counter)")
        }
    }

    @Test func codesAreZeroPaddedToTheirLength() throws {
        // RFC 6238: SHA-1 at 1111111109 is 07081804 with 8 digits; its last 7 and 6 digits are 7081804 and 081804.
        for (digits, code) in [(6, "081804"), (7, "7081804"), (8, "07081804")] {
            let password = try OneTimePassword(secret: Self.rfc4226Secret, digits: digits)
            #expect(try password.code(at: 1_111_111_109) == code)
        }
    }

    @Test func stepsFollowThePeriod() throws {
        let thirty = try OneTimePassword(secret: Self.rfc4226Secret)
        #expect(thirty.step(at: 0) == 0)
        #expect(thirty.step(at: 29) == 0)
        #expect(thirty.step(at: 30) == 1)
        #expect(thirty.step(at: 59) == 1)
        #expect(thirty.step(at: 60) == 2)
        #expect(thirty.step(at: Int64.max) == Int64.max / 30)
        #expect(thirty.step(at: -1) == 0)
        #expect(thirty.step(at: Int64.min) == 0)
        let one = try OneTimePassword(secret: Self.rfc4226Secret, period: 1)
        #expect(one.step(at: 12345) == 12345)
        #expect(try one.code(at: 3) == one.hotp(counter: 3))
        let sixty = try OneTimePassword(secret: Self.rfc4226Secret, period: 60)
        #expect(try sixty.code(at: 119) == thirty.code(at: 59))
    }

    @Test(arguments: 0...10)
    func windowEdges(window: Int) throws {
        let password = try OneTimePassword(secret: Self.rfc4226Secret)
        let time: Int64 = 1_700_000_015
        let now = password.step(at: time)
        for offset in [-window, window] {
            let step = now + Int64(offset)
            let code = try password.hotp(counter: UInt64(step))
            #expect(try password.matchingStep(code, at: time, window: window) == step, "offset \(offset)")
        }
        for offset in [-(window + 1), window + 1] {
            let code = try password.hotp(counter: UInt64(now + Int64(offset)))
            #expect(try password.matchingStep(code, at: time, window: window) == nil, "offset \(offset)")
        }
    }

    @Test func everyStepInsideTheWindowMatches() throws {
        let password = try OneTimePassword(secret: Self.rfc4226Secret, algorithm: .sha256, digits: 8)
        let time: Int64 = 2_000_000_000
        let now = password.step(at: time)
        for step in (now - 5)...(now + 5) {
            let code = try password.hotp(counter: UInt64(step))
            #expect(try password.matchingStep(code, at: time, window: 5) == step)
        }
    }

    @Test func theClosestOfTwoMatchingStepsWins() throws {
        // Steps 2386 and 2394 of the RFC 4226 secret (SHA-1, 6 digits) share the code 709847.
        let password = try OneTimePassword(secret: Self.rfc4226Secret)
        try #require(try password.hotp(counter: 2386) == "709847")
        try #require(try password.hotp(counter: 2394) == "709847")
        #expect(try password.matchingStep("709847", at: 2389 * 30, window: 5) == 2386)
        #expect(try password.matchingStep("709847", at: 2391 * 30, window: 5) == 2394)
        // Equally far: the earlier step wins.
        #expect(try password.matchingStep("709847", at: 2390 * 30 + 29, window: 4) == 2386)
        #expect(try password.matchingStep("709847", at: 2390 * 30, window: 3) == nil)
    }

    @Test func windowsStopAtTheEpochAndAtTheLastStep() throws {
        let password = try OneTimePassword(secret: Self.rfc4226Secret, period: 1)
        #expect(try password.matchingStep(password.hotp(counter: 0), at: 3, window: 3) == 0)
        #expect(try password.matchingStep(password.hotp(counter: 2), at: 0, window: 3) == 2)
        let last = UInt64(Int64.max)
        #expect(try password.matchingStep(password.hotp(counter: last), at: Int64.max, window: 10) == Int64.max)
        let tenBefore = try password.hotp(counter: last - 10)
        #expect(try password.matchingStep(tenBefore, at: Int64.max, window: 10) == Int64.max - 10)
    }

    @Test func malformedCodesAreNil() throws {
        let password = try OneTimePassword(secret: Self.rfc4226Secret, period: 1)
        let code = try password.code(at: 1000)
        #expect(try password.matchingStep(code, at: 1000, window: 1) == 1000)
        let malformed = [
            "", "12345", "1234567", String(code.dropLast()), code + "0", "12a456", "abcdef", "ABCDEF",
            " " + code.dropLast(), code.dropLast() + " ", "+12345", "-12345", "12 456", "12345\u{0}", "123.45",
            "１２３４５６", "١٢٣٤٥٦",
        ]
        for text in malformed {
            #expect(try password.matchingStep(text, at: 1000, window: 10) == nil, "\(text.debugDescription)")
        }
        let other = try OneTimePassword(secret: Array("another secret".utf8), period: 1)
        let otherCode = try other.code(at: 1000)
        try #require(otherCode != code)
        #expect(try password.matchingStep(otherCode, at: 1000, window: 0) == nil)
    }

    @Test func badParametersAreRefused() {
        for digits in [-1, 0, 1, 5, 9, 10, Int.max] {
            #expect(throws: OneTimePasswordError.digitsOutOfRange(digits)) {
                try OneTimePassword(secret: Self.rfc4226Secret, digits: digits)
            }
        }
        for period in [0, -1, -30, Int.min] {
            #expect(throws: OneTimePasswordError.periodOutOfRange(period)) {
                try OneTimePassword(secret: Self.rfc4226Secret, period: period)
            }
        }
        #expect(throws: OneTimePasswordError.emptySecret) { try OneTimePassword(secret: []) }
        #expect(throws: OneTimePasswordError.emptySecret) { try OneTimePassword(secret: [], digits: 5) }
    }

    @Test func badTimesAndWindowsAreRefused() throws {
        let password = try OneTimePassword(secret: Self.rfc4226Secret)
        #expect(throws: OneTimePasswordError.timeBeforeEpoch(-1)) { try password.code(at: -1) }
        #expect(throws: OneTimePasswordError.timeBeforeEpoch(Int64.min)) { try password.code(at: Int64.min) }
        #expect(throws: OneTimePasswordError.timeBeforeEpoch(-30)) {
            try password.matchingStep("123456", at: -30, window: 1)
        }
        for window in [-1, Int.min, OneTimePassword.maximumWindow + 1, Int.max] {
            #expect(throws: OneTimePasswordError.windowOutOfRange(window)) {
                try password.matchingStep("123456", at: 59, window: window)
            }
            // The window is checked before the code's shape: a bad call is an error even with a malformed code.
            #expect(throws: OneTimePasswordError.windowOutOfRange(window)) {
                try password.matchingStep("x", at: 59, window: window)
            }
        }
        let widest = try password.code(at: 59)
        #expect(try password.matchingStep(widest, at: 59, window: OneTimePassword.maximumWindow) == 1)
    }

    @Test func secretsAreNotPrinted() throws {
        let password = try OneTimePassword(secret: Array("do-not-print-me".utf8), algorithm: .sha512, digits: 8)
        #expect(String(describing: password) == "OneTimePassword(SHA512, 8 digits, 30 s)")
        #expect(!String(reflecting: password).contains("print"))
        #expect(!OneTimePasswordError.emptySecret.description.isEmpty)
    }

    @Test func algorithmNamesAreTheURIs() {
        #expect(OTPAlgorithm.allCases.map(\.rawValue) == ["SHA1", "SHA256", "SHA512"])
        #expect(OTPAlgorithm(rawValue: "sha1") == nil)
    }
}
