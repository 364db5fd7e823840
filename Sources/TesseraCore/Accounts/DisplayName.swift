/// Users' display names: optional, at most 256 characters, no control characters.
public enum DisplayName {
    /// The longest name accepted.
    public static let maximumLength = 256

    /// `name` when acceptable, else `INVALID_ARGUMENT`.
    public static func check(_ name: String?) throws(AuthError) -> String? {
        guard let name else { return nil }
        guard name.count <= maximumLength, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw AuthError(.invalidArgument, "displayName must be at most 256 characters without control characters.")
        }
        return name
    }
}
