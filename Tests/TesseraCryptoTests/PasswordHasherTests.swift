import Synchronization
import TesseraCrypto
import Testing

@Suite("PasswordHasher (scrypt)")
struct PasswordHasherTests {
    /// Cheap parameters so the suite stays fast; production uses ScryptParameters.recommended.
    static let fast = try? ScryptParameters(logN: 4, r: 1, p: 1)

    func fastHasher() throws -> PasswordHasher {
        PasswordHasher(parameters: try #require(Self.fast))
    }

    @Test func hashesAndVerifies() throws {
        let hasher = try fastHasher()
        let phc = try hasher.hash("correct horse battery staple")
        #expect(phc.hasPrefix("$scrypt$ln=4,r=1,p=1$"))
        let fields = phc.split(separator: "$", omittingEmptySubsequences: false)
        #expect(fields.count == 5)
        #expect(fields[3].count == 22)
        #expect(fields[4].count == 43)
        #expect(try hasher.verify("correct horse battery staple", against: phc))
        #expect(try !hasher.verify("correct horse battery stapler", against: phc))
        #expect(try !hasher.verify("", against: phc))
        #expect(try hasher.hash("correct horse battery staple") != phc)
        let empty = try hasher.hash("")
        #expect(try hasher.verify("", against: empty))
        let unicode = try hasher.hash("pässwörd 🔑")
        #expect(try hasher.verify("pässwörd 🔑", against: unicode))
    }

    @Test func defaultParametersAreWhatThePHCStringSays() throws {
        let hasher = PasswordHasher()
        #expect(hasher.parameters == ScryptParameters.recommended)
        #expect(hasher.parameters.logN == 15 && hasher.parameters.r == 8 && hasher.parameters.p == 1)
        let phc = try hasher.hash("a default-strength password")
        #expect(phc.hasPrefix("$scrypt$ln=15,r=8,p=1$"))
        #expect(try hasher.verify("a default-strength password", against: phc))
        #expect(try !hasher.needsRehash(phc))
    }

    @Test func verifiesWithTheParametersOfTheStoredHash() throws {
        let weak = try PasswordHasher(parameters: ScryptParameters(logN: 3, r: 1, p: 1)).hash("password1")
        let hasher = try fastHasher()
        #expect(try hasher.verify("password1", against: weak))
    }

    @Test func needsRehashWhenWeakerThanCurrent() throws {
        let current = try PasswordHasher(parameters: ScryptParameters(logN: 5, r: 2, p: 2))
        let cases: [(ScryptParameters, Bool)] = [
            (try ScryptParameters(logN: 4, r: 2, p: 2), true),
            (try ScryptParameters(logN: 5, r: 1, p: 2), true),
            (try ScryptParameters(logN: 5, r: 2, p: 1), true),
            (try ScryptParameters(logN: 5, r: 2, p: 2), false),
            (try ScryptParameters(logN: 6, r: 2, p: 2), false),
        ]
        for (parameters, expected) in cases {
            let phc = try PasswordHasher(parameters: parameters).hash("password1")
            #expect(try current.needsRehash(phc) == expected, "\(parameters)")
        }
        // A stored hash shorter than 32 bytes is weaker too.
        let shortHash =
            "$scrypt$ln=5,r=2,p=2$" + Base64.encode(Array(repeating: 1, count: 16), padded: false)
            + "$" + Base64.encode(Array(repeating: 2, count: 16), padded: false)
        #expect(try current.needsRehash(shortHash))
    }

    static let salt = Base64.encode(Array(repeating: 7, count: 16), padded: false)
    static let hash = Base64.encode(Array(repeating: 9, count: 32), padded: false)

    @Test(arguments: [
        "",
        "scrypt",
        "$",
        "$scrypt",
        "$scrypt$",
        "$scrypt$ln=4,r=1,p=1",
        "$scrypt$ln=4,r=1,p=1$\(salt)",
        "$scrypt$ln=4,r=1,p=1$\(salt)$\(hash)$extra",
        "$scrypt$$\(salt)$\(hash)",
        "$scrypt$ln=4,r=1$\(salt)$\(hash)",
        "$scrypt$ln=4,p=1,r=1$\(salt)$\(hash)",
        "$scrypt$n=16,r=1,p=1$\(salt)$\(hash)",
        "$scrypt$ln=4,r=1,p=1,x=2$\(salt)$\(hash)",
        "$scrypt$ln=04,r=1,p=1$\(salt)$\(hash)",
        "$scrypt$ln=-4,r=1,p=1$\(salt)$\(hash)",
        "$scrypt$ln=+4,r=1,p=1$\(salt)$\(hash)",
        "$scrypt$ln=4.0,r=1,p=1$\(salt)$\(hash)",
        "$scrypt$ln=,r=1,p=1$\(salt)$\(hash)",
        "$scrypt$ln=99999999999999999999,r=1,p=1$\(salt)$\(hash)",
        "$scrypt$ln=4,r=1,p=1$!!!!$\(hash)",
        "$scrypt$ln=4,r=1,p=1$\(salt)==$\(hash)",
        "$scrypt$ln=4,r=1,p=1$\(salt)$\(hash)=",
        "$scrypt$ln=4,r=1,p=1$\(salt)$",
        "$scrypt$ln=4,r=1,p=1$$\(hash)",
        "$scrypt$ln=4,r=1,p=1$c2FsdA$\(hash)",
        "$scrypt$ln=4,r=1,p=1$\(salt)$c2hvcnQ",
        "$scrypt$ln=4,r=1,p=1$\(salt)$\(hash)\(hash)\(hash)",
        "$scrypt$ln=4,r=1,p=1$BwcHBwcH-wcHBwcHBwcHBw$\(hash)",
        " $scrypt$ln=4,r=1,p=1$\(salt)$\(hash)",
    ])
    func malformedStringsAreRefused(phc: String) throws {
        let hasher = try fastHasher()
        #expect(throws: PasswordHashError.self) { try hasher.verify("password1", against: phc) }
        #expect(throws: PasswordHashError.self) { try hasher.needsRehash(phc) }
    }

    @Test(arguments: [
        "$scrypt$ln=64,r=8,p=1$\(salt)$\(hash)",
        "$scrypt$ln=0,r=8,p=1$\(salt)$\(hash)",
        "$scrypt$ln=21,r=1,p=1$\(salt)$\(hash)",
        "$scrypt$ln=15,r=0,p=1$\(salt)$\(hash)",
        "$scrypt$ln=15,r=33,p=1$\(salt)$\(hash)",
        "$scrypt$ln=15,r=8,p=0$\(salt)$\(hash)",
        "$scrypt$ln=15,r=8,p=17$\(salt)$\(hash)",
        "$scrypt$ln=19,r=8,p=1$\(salt)$\(hash)",
        "$scrypt$ln=999999999,r=8,p=1$\(salt)$\(hash)",
    ])
    func absurdParametersAreRefusedWithoutRunningScrypt(phc: String) throws {
        let hasher = try fastHasher()
        let error = #expect(throws: PasswordHashError.self) { try hasher.verify("password1", against: phc) }
        guard case .parametersOutOfRange = error else {
            Issue.record("expected parametersOutOfRange, got \(String(describing: error))")
            return
        }
    }

    @Test func otherAlgorithmsAreNamed() throws {
        let hasher = try fastHasher()
        #expect(throws: PasswordHashError.unsupportedAlgorithm("argon2id")) {
            try hasher.verify("password1", against: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2g")
        }
        #expect(throws: PasswordHashError.unsupportedAlgorithm("2b")) {
            try hasher.verify("password1", against: "$2b$12$abcdefghijklmnopqrstuv")
        }
    }

    @Test func parameterRanges() {
        #expect(throws: PasswordHashError.self) { try ScryptParameters(logN: 0, r: 1, p: 1) }
        #expect(throws: PasswordHashError.self) { try ScryptParameters(logN: 64, r: 1, p: 1) }
        #expect(throws: PasswordHashError.self) { try ScryptParameters(logN: 15, r: 0, p: 1) }
        #expect(throws: PasswordHashError.self) { try ScryptParameters(logN: 15, r: 8, p: 0) }
        #expect(throws: PasswordHashError.self) { try ScryptParameters(logN: 19, r: 8, p: 1) }
        #expect(throws: Never.self) { try ScryptParameters(logN: 18, r: 8, p: 1) }
        #expect(ScryptParameters.recommended.description == "ln=15,r=8,p=1")
        #expect(ScryptParameters.recommended.memoryByteCount > 32 << 20)
    }

    @Test func asyncVariantsRunThroughTheOffloadFunction() async throws {
        let hasher = try fastHasher()
        let counter = OffloadCounter()
        let phc = try await hasher.hash("password1") { work in
            counter.increment()
            return try work()
        }
        let matches = try await hasher.verify("password1", against: phc) { work in
            counter.increment()
            return try work()
        }
        #expect(matches)
        #expect(counter.value == 2)
        await #expect(throws: PasswordHashError.self) {
            try await hasher.verify("password1", against: "$scrypt$bad") { work in try work() }
        }
        struct PoolStopped: Error {}
        await #expect(throws: PoolStopped.self) {
            try await hasher.hash("password1") { _ in throw PoolStopped() }
        }
    }
}

/// Counts calls of a fake offload function.
final class OffloadCounter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
