/// The code field of a factor's code pages (``FactorLoginPages/code``): the member of the factor's
/// ``FactorDescriptor/verificationInfo`` that receives the code (beside `sessionInfo` where the factor has a
/// session), its label, its length and whether it is digits only. The field itself is always named `code` on the
/// page. Its JSON form is `{infoKey, label, length, numeric}`.
public struct FactorCodeField: Sendable, Equatable {
    /// The verification info member of the code (`verificationCode` for TOTP, `code` for SMS).
    public var infoKey: String
    /// The label of the input (`Verification code`).
    public var label: String
    /// The number of characters (the input's `maxlength`).
    public var length: Int
    /// Whether the code is digits only (a numeric keyboard and pattern on the page); false for codes with letters.
    public var isNumeric: Bool

    /// A code field with every part given.
    public init(infoKey: String, label: String = "Verification code", length: Int = 6, isNumeric: Bool = true) {
        self.infoKey = infoKey
        self.label = label
        self.length = length
        self.isNumeric = isNumeric
    }
}
