import TesseraCore
import TesseraCrypto

/// A user's set of recovery codes as the factor keeps it (the enrolment's state, sealed by the router): the SHA-256
/// of each code, in the order they were shown, and which have been used.
///
/// A code is 12 characters of Crockford's base32 (60 bits from the CSPRNG), shown as `xxxx-xxxx-xxxx`. Typed codes
/// are read leniently: case, spaces and dashes do not matter, and `i`/`l` read as `1`, `o` as `0`.
struct RecoveryCodeSet: Equatable {
    /// Codes in a set.
    static let count = 10
    /// Characters of a code (5 bits each: 60 bits).
    static let length = 12
    /// Crockford's base32 alphabet, lower case: no `i`, `l`, `o`, `u`.
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")

    /// The SHA-256 of each code.
    var digests: [[UInt8]]
    /// Which codes have been used, by index into ``digests``.
    var used: [Bool]

    /// How many codes are left.
    var remaining: Int { used.filter { !$0 }.count }
    /// How many have been used: the replay mark of the set (each use raises it by one).
    var usedCount: Int { used.count - remaining }

    /// A new set: the codes to show once, and the set to keep.
    static func make() throws -> (codes: [String], set: RecoveryCodeSet) {
        var codes: [String] = []
        for _ in 0..<count {
            let bytes = try SecureRandom.bytes(count: length)
            let characters = bytes.map { alphabet[Int($0 & 31)] }
            codes.append(
                String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12]))
        }
        let set = RecoveryCodeSet(
            digests: try codes.map { try Digest.sha256(normalize($0) ?? "") },
            used: Array(repeating: false, count: count))
        return (codes, set)
    }

    /// The canonical form of a typed code, or nil when it cannot be one.
    static func normalize(_ typed: String) -> String? {
        var characters: [Character] = []
        for character in typed.lowercased() where character != "-" && character != " " {
            switch character {
            case "i", "l": characters.append("1")
            case "o": characters.append("0")
            default:
                guard alphabet.contains(character) else { return nil }
                characters.append(character)
            }
        }
        return characters.count == length ? String(characters) : nil
    }

    /// The index of the unused code `typed` is, or nil; every digest is compared, in constant time each.
    func unusedIndex(of typed: String) throws -> Int? {
        guard let canonical = Self.normalize(typed) else { return nil }
        let digest = try Digest.sha256(canonical)
        var found: Int?
        for (index, stored) in digests.enumerated() where ConstantTime.equals(stored, digest) && !used[index] {
            found = index
        }
        return found
    }

    /// Whether `typed` is one of the codes, used or not.
    func contains(_ typed: String) throws -> Bool {
        guard let canonical = Self.normalize(typed) else { return false }
        let digest = try Digest.sha256(canonical)
        return digests.contains { ConstantTime.equals($0, digest) }
    }

    /// The stored form: per code one byte (1 used, 0 not) then its 32-byte digest.
    var bytes: [UInt8] {
        zip(digests, used).flatMap { digest, used in [used ? 1 : 0] + digest }
    }

    /// A set read back from ``bytes``; nil when the bytes are not one.
    init?(bytes: [UInt8]) {
        guard !bytes.isEmpty, bytes.count % 33 == 0 else { return nil }
        var digests: [[UInt8]] = []
        var used: [Bool] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes[offset] <= 1 else { return nil }
            used.append(bytes[offset] == 1)
            digests.append(Array(bytes[offset + 1..<offset + 33]))
            offset += 33
        }
        self.init(digests: digests, used: used)
    }

    init(digests: [[UInt8]], used: [Bool]) {
        self.digests = digests
        self.used = used
    }
}
