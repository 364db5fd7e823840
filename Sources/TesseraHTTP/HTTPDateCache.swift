internal import Glibc

/// The current HTTP date, formatted at most once per second: every response carries a `Date` field, so this is on
/// the hot path. One cache per event loop; it is not thread-safe.
public final class HTTPDateCache {
    var cachedSecond = Int.min
    var cachedText = ""

    /// Creates an empty cache; the first ``current()`` formats the date.
    public init() {}

    /// The IMF-fixdate of the current wall-clock second.
    public func current() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = Int(now.tv_sec)
        if second != cachedSecond {
            cachedSecond = second
            cachedText = HTTPDate.imfFixdate(secondsSince1970: second)
        }
        return cachedText
    }
}
