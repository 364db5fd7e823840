/// A wait in words, for "too many attempts" messages: "45 seconds", "15 minutes", "2 hours" (rounded up).
enum WaitDescription {
    /// `seconds` in words; nil or less than one second reads "a moment".
    static func words(_ seconds: Int?) -> String {
        guard let seconds, seconds > 0 else { return "a moment" }
        if seconds < 60 { return plural(seconds, "second") }
        if seconds < 3600 { return plural((seconds + 59) / 60, "minute") }
        return plural((seconds + 3599) / 3600, "hour")
    }

    private static func plural(_ count: Int, _ unit: String) -> String {
        "\(count) \(unit)\(count == 1 ? "" : "s")"
    }
}
