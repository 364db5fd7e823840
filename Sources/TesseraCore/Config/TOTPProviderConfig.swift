/// The settings of the TOTP factor: how many 30-second steps either side of now a code may come from.
public struct TOTPProviderConfig: Sendable, Hashable {
    /// The value taken when `adjacentIntervals` is omitted.
    public static let defaultAdjacentIntervals = 5
    /// The values `adjacentIntervals` may take.
    public static let allowedAdjacentIntervals = 0...10

    /// Codes of the steps within ± this many steps of now are accepted (0–10).
    public var adjacentIntervals: Int

    /// Creates the settings; ``init(json:at:)`` is where the range is enforced.
    public init(adjacentIntervals: Int = TOTPProviderConfig.defaultAdjacentIntervals) {
        self.adjacentIntervals = adjacentIntervals
    }
}
