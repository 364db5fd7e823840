/// A parsed scrypt PHC string (the format ``PasswordHasher`` documents). Parsing is strict: the exact prefix,
/// parameter names and order, canonical decimal numbers, unpadded base64, salt of 8 to 64 bytes, hash of 16 to
/// 64 bytes.
struct StoredPasswordHash {
    let parameters: ScryptParameters
    let salt: [UInt8]
    let hash: [UInt8]

    init(parameters: ScryptParameters, salt: [UInt8], hash: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.hash = hash
    }

    init(phc: String) throws(PasswordHashError) {
        guard phc.utf8.count <= 512 else { throw .malformedHash("longer than 512 bytes") }
        let fields = phc.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count >= 2, fields[0].isEmpty else { throw .malformedHash("does not start with $<id>$") }
        guard fields[1] == "scrypt" else { throw .unsupportedAlgorithm(String(fields[1].prefix(32))) }
        guard fields.count == 5 else { throw .malformedHash("expected 5 $-separated fields, got \(fields.count)") }
        parameters = try Self.parseParameters(fields[2])
        salt = try Self.decode(fields[3], name: "salt", lengths: 8...64)
        hash = try Self.decode(fields[4], name: "hash", lengths: 16...64)
    }

    /// `$scrypt$ln=…,r=…,p=…$<salt>$<hash>`.
    var phcString: String {
        "$scrypt$\(parameters)$\(Base64.encode(salt, padded: false))$\(Base64.encode(hash, padded: false))"
    }

    private static func parseParameters(_ field: Substring) throws(PasswordHashError) -> ScryptParameters {
        let pairs = field.split(separator: ",", omittingEmptySubsequences: false)
        let names = ["ln", "r", "p"]
        guard pairs.count == names.count else { throw .malformedHash("parameters must be ln=…,r=…,p=…") }
        var values: [Int] = []
        for (pair, name) in zip(pairs, names) {
            let parts = pair.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == name else {
                throw .malformedHash("parameters must be ln=…,r=…,p=…")
            }
            guard let value = parseDecimal(parts[1]) else {
                throw .malformedHash("parameter \(name) is not a canonical decimal number")
            }
            values.append(value)
        }
        return try ScryptParameters(logN: values[0], r: values[1], p: values[2])
    }

    /// A decimal of 1 to 9 digits without sign or leading zero, or nil.
    private static func parseDecimal(_ text: Substring) -> Int? {
        let digits = Array(text.utf8)
        guard (1...9).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        guard digits[0] != 0x30 || digits.count == 1 else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func decode(
        _ field: Substring,
        name: String,
        lengths: ClosedRange<Int>
    ) throws(PasswordHashError) -> [UInt8] {
        guard !field.contains("=") else { throw .malformedHash("\(name) must be base64 without padding") }
        let bytes: [UInt8]
        do { bytes = try Base64.decode(field) } catch { throw .malformedHash("\(name) is not base64: \(error)") }
        guard lengths.contains(bytes.count) else {
            throw .malformedHash("\(name) of \(bytes.count) bytes is outside \(lengths)")
        }
        return bytes
    }
}
