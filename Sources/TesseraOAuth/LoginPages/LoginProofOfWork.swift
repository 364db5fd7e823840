import TesseraCrypto

/// The proof of work a login page asks before it sends a code to an address the user typed (an SMS to a new phone
/// number, a mail to a new e-mail address). The pages send such codes without app verification, vouching for
/// themselves, so without it a script with a signed-up account could make Tessera text premium-rate numbers as fast
/// as it signs up; with it each new address costs the sender about 2^``bits`` SHA-256 computations, on top of the
/// send limits per number, per client address and per browser, and of the region allow-list (docs/security.md).
///
/// The challenge is derived from the flow id, so it exists only once the flow does and differs for every flow;
/// the proof binds it to the values typed, so one proof sends to one address. The page's script (`login.js`)
/// finds a nonce such that SHA-256(challenge "\n" values joined by "\n" "\n" nonce) starts with ``bits`` zero bits.
struct LoginProofOfWork: Sendable {
    /// Leading zero bits the proof's digest must have; 0 asks for no proof.
    let bits: Int

    /// The difficulty the pages use: ~65,000 SHA-256, a fraction of a second in a browser.
    static let standard = LoginProofOfWork(bits: 16)

    /// The challenge of the flow whose id is `flowID`, as lower-case hex.
    static func challenge(flowID: String) -> String {
        let digest = (try? Digest.sha256("tessera login proof of work\n" + flowID)) ?? []
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Whether `nonce` proves the work for `challenge` and `values` (the typed fields, in the factor's order).
    func accepts(challenge: String, values: [String], nonce: String?) -> Bool {
        guard bits > 0 else { return true }
        guard let nonce, !nonce.isEmpty, nonce.utf8.count <= 20, nonce.utf8.allSatisfy({ (48...57).contains($0) })
        else { return false }
        let message = challenge + "\n" + values.joined(separator: "\n") + "\n" + nonce
        guard let digest = try? Digest.sha256(message) else { return false }
        return Self.leadingZeroBits(digest) >= bits
    }

    /// The zero bits `digest` starts with.
    static func leadingZeroBits(_ digest: [UInt8]) -> Int {
        var count = 0
        for byte in digest {
            guard byte == 0 else { return count + byte.leadingZeroBitCount }
            count += 8
        }
        return count
    }
}
