public import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Times as the API writes them (API §2): RFC 3339 in UTC with whole seconds, `2026-11-21T10:00:00Z`.
public enum RFC3339 {
    /// `date` in UTC, truncated to whole seconds.
    public static func string(from date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))Z"
    }
}
