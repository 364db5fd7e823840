/// HOTP (RFC 4226) and TOTP (RFC 6238) codes of one shared secret, computed with ``HMAC``.
///
/// Time steps count from the Unix epoch (T0 = 0): step = floor(unixTime / period). Times before 1970 are refused
/// with ``OneTimePasswordError/timeBeforeEpoch(_:)`` by every method that makes or checks a code; ``step(at:)``,
/// which cannot throw, answers 0 for them. Codes are compared in constant time (``ConstantTime``).
///
/// The secret is never printed: ``description`` names only the parameters.
public struct OneTimePassword: Sendable, CustomStringConvertible {
    /// The largest number of adjacent steps ``matchingStep(_:at:window:)`` tries on each side of now. Tessera's
    /// configuration allows 10; the bound keeps one check to at most 201 HMACs.
    public static let maximumWindow = 100

    /// The HMAC hash.
    public let algorithm: OTPAlgorithm
    /// The number of decimal digits of a code, 6...8.
    public let digits: Int
    /// The length of a time step in seconds, at least 1.
    public let period: Int

    private let secret: [UInt8]
    /// 10^digits: a code is the truncated HMAC modulo this.
    private let modulus: UInt32

    /// A generator of codes for `secret`. Throws ``OneTimePasswordError/emptySecret`` for an empty secret,
    /// ``OneTimePasswordError/digitsOutOfRange(_:)`` unless `digits` is 6...8, and
    /// ``OneTimePasswordError/periodOutOfRange(_:)`` unless `period` is at least 1.
    public init(
        secret: [UInt8],
        algorithm: OTPAlgorithm = .sha1,
        digits: Int = 6,
        period: Int = 30
    ) throws(OneTimePasswordError) {
        guard !secret.isEmpty else { throw .emptySecret }
        guard (6...8).contains(digits) else { throw .digitsOutOfRange(digits) }
        guard period >= 1 else { throw .periodOutOfRange(period) }
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        self.modulus = modulus
    }

    /// The parameters, e.g. `OneTimePassword(SHA1, 6 digits, 30 s)`; never the secret.
    public var description: String {
        "OneTimePassword(\(algorithm.rawValue), \(digits) digits, \(period) s)"
    }

    /// The RFC 4226 code for `counter`: the HMAC of the 8-byte big-endian counter, dynamically truncated to 31 bits
    /// and reduced to ``digits`` decimal digits, zero-padded on the left. Throws only when OpenSSL fails.
    public func hotp(counter: UInt64) throws(OneTimePasswordError) -> String {
        let message = (0..<8).map { index in UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64(index))) }
        let mac: [UInt8]
        do {
            mac = try HMAC.authenticationCode(for: message, key: secret, algorithm: algorithm.hmacAlgorithm)
        } catch {
            throw .crypto(error)
        }
        // RFC 4226 §5.3: the low 4 bits of the last byte choose where 4 bytes are read; the top bit is dropped.
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let truncated =
            UInt32(mac[offset] & 0x7F) << 24 | UInt32(mac[offset + 1]) << 16
            | UInt32(mac[offset + 2]) << 8 | UInt32(mac[offset + 3])
        let value = String(truncated % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The RFC 6238 time step of `unixTime`: floor(unixTime / period), counted from 1970. A time before 1970 has
    /// no step and answers 0; ``code(at:)`` and ``matchingStep(_:at:window:)`` refuse such times instead.
    public func step(at unixTime: Int64) -> Int64 {
        unixTime < 0 ? 0 : unixTime / Int64(period)
    }

    /// The RFC 6238 code at `unixTime` (the HOTP code of its step). Throws
    /// ``OneTimePasswordError/timeBeforeEpoch(_:)`` for a negative time, or when OpenSSL fails.
    public func code(at unixTime: Int64) throws(OneTimePasswordError) -> String {
        guard unixTime >= 0 else { throw .timeBeforeEpoch(unixTime) }
        return try hotp(counter: UInt64(step(at: unixTime)))
    }

    /// The time step within `window` steps of the step of `unixTime` whose code is `code`, or nil when none is.
    ///
    /// Every step of the window is computed and compared in constant time, whatever matched, so the time taken
    /// says nothing about which step (if any) matched. Steps before 1970 or past `Int64.max` are not tried.
    /// When two steps match, the one closest to now wins, the earlier one on a tie. A code that is not exactly
    /// ``digits`` ASCII digits answers nil without computing anything; it reveals only its own shape.
    ///
    /// Throws ``OneTimePasswordError/timeBeforeEpoch(_:)`` for a negative time,
    /// ``OneTimePasswordError/windowOutOfRange(_:)`` unless `window` is `0...maximumWindow`, or when OpenSSL
    /// fails.
    public func matchingStep(_ code: String, at unixTime: Int64, window: Int) throws(OneTimePasswordError) -> Int64? {
        guard unixTime >= 0 else { throw .timeBeforeEpoch(unixTime) }
        guard (0...Self.maximumWindow).contains(window) else { throw .windowOutOfRange(window) }
        let candidate = Array(code.utf8)
        guard candidate.count == digits,
            candidate.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let now = step(at: unixTime)
        var matched: Int64?
        // Nearest first (now, now-1, now+1, now-2, ...): the first match is the closest, the earlier on a tie.
        for distance in 0...Int64(window) {
            for sign: Int64 in distance == 0 ? [1] : [-1, 1] {
                let (step, overflow) = now.addingReportingOverflow(sign * distance)
                guard !overflow, step >= 0 else { continue }
                let expected = try hotp(counter: UInt64(step))
                if ConstantTime.equals(Array(expected.utf8), candidate), matched == nil {
                    matched = step
                }
            }
        }
        return matched
    }
}
