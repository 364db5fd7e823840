import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// `timestamptz` text in the form the driver's sessions use (`DateStyle=ISO`, `TimeZone=UTC`):
/// `2026-11-21 10:00:00.123456+00`.
enum PostgresTimestamp {
    /// The text sent for a date out of every timestamp's range: not a timestamp, so PostgreSQL refuses it.
    static let outOfRange = "out of range"

    /// `date` as UTC text with microseconds, in UTF-8 bytes as a parameter is sent (`1970-01-01 00:00:00.000000+00`).
    /// A date no count of microseconds in 64 bits holds (beyond ±292 000 years, or not a number) is sent as
    /// ``outOfRange``, which PostgreSQL refuses: its statement fails, where converting it would stop the process.
    static func bytes(of date: Date) -> [UInt8] {
        guard let micros = Int64(exactly: (date.timeIntervalSince1970 * 1_000_000).rounded(.down)) else {
            return Array(outOfRange.utf8)
        }
        var seconds = time_t(micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000)
        let fraction = Int(micros - Int64(seconds) * 1_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        func append(_ value: Int, width: Int, then separator: UInt8? = nil) {
            if value < 0 { text.append(UInt8(ascii: "-")) }
            let magnitude = value.magnitude
            var divisor: UInt = 1
            var digits = 1
            while digits < width || magnitude / divisor >= 10 {
                divisor *= 10
                digits += 1
            }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
                divisor /= 10
            }
            if let separator { text.append(separator) }
        }
        append(Int(parts.tm_year) + 1900, width: 4, then: UInt8(ascii: "-"))
        append(Int(parts.tm_mon) + 1, width: 2, then: UInt8(ascii: "-"))
        append(Int(parts.tm_mday), width: 2, then: UInt8(ascii: " "))
        append(Int(parts.tm_hour), width: 2, then: UInt8(ascii: ":"))
        append(Int(parts.tm_min), width: 2, then: UInt8(ascii: ":"))
        append(Int(parts.tm_sec), width: 2, then: UInt8(ascii: "."))
        append(fraction, width: 6)
        text.append(contentsOf: "+00".utf8)
        return text
    }

    /// Parses `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM]`; nil for anything else (`infinity` included).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == character else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), expect(UInt8(ascii: " ")), let hour = number(2), expect(UInt8(ascii: ":")),
            let minute = number(2), expect(UInt8(ascii: ":")), let second = number(2)
        else { return nil }
        var micros = 0
        if expect(UInt8(ascii: ".")) {
            var scale = 100_000
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                micros += Int(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
        }
        guard index < bytes.count else { return nil }
        let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
        guard expect(UInt8(ascii: "+")) || expect(UInt8(ascii: "-")), let offsetHours = number(2) else { return nil }
        var offsetMinutes = 0
        if expect(UInt8(ascii: ":")) {
            guard let minutes = number(2) else { return nil }
            offsetMinutes = minutes
        }
        guard index == bytes.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let utc = Int(timegm(&parts)) - sign * (offsetHours * 3600 + offsetMinutes * 60)
        return Date(timeIntervalSince1970: Double(utc) + Double(micros) / 1_000_000)
    }
}
