/// The rule of the `CallingCodeTable` format that a line breaks.
enum CallingCodeLineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A space before the first field, after the last, or next to another.
    case extraSpace
    /// Not two or three fields separated by single spaces (the count found).
    case fieldCount(Int)
    /// The calling code is not 1 to 3 digits with the first not `0`.
    case callingCode(String)
    /// The leading digits are not 1 to 8 digits.
    case leadingDigits(String)
    /// The region is neither two upper-case letters nor `001`.
    case region(String)

    /// What is wrong, naming the offending field.
    var description: String {
        switch self {
        case .extraSpace: "a space before the first field, after the last or next to another"
        case .fieldCount(let count): "expected 2 or 3 fields separated by single spaces, found \(count)"
        case .callingCode(let code): "calling code \"\(code)\" is not 1 to 3 digits with the first not 0"
        case .leadingDigits(let digits): "leading digits \"\(digits)\" are not 1 to 8 digits"
        case .region(let region): "region \"\(region)\" is neither two upper-case letters nor 001"
        }
    }
}
