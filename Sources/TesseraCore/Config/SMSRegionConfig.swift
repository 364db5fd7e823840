/// Which regions (CLDR codes such as `US`, derived from a number's country calling code) may receive SMS.
public enum SMSRegionConfig: Sendable, Hashable {
    /// Every region except the listed ones.
    case allowByDefault(disallowedRegions: [String])
    /// Only the listed regions; an empty list allows none.
    case allowlistOnly(allowedRegions: [String])

    /// The default: every region allowed.
    public static let allowAll = SMSRegionConfig.allowByDefault(disallowedRegions: [])

    /// Whether SMS may be sent to a region. Codes compare exactly: pass the upper-case CLDR code.
    public func allows(region: String) -> Bool {
        switch self {
        case .allowByDefault(let disallowedRegions): !disallowedRegions.contains(region)
        case .allowlistOnly(let allowedRegions): allowedRegions.contains(region)
        }
    }
}
