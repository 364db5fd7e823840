/// A field of a factor's enrolment form on the login pages (``FactorLoginPages/enrollFields``): what the user is
/// asked for, and where the value goes in the factor's ``FactorDescriptor/enrollmentInfo``. Its JSON form is
/// `{name, label, inputType, autocomplete?, hint?, required?, infoKey?, normalization?}`.
public struct FactorInputField: Sendable, Equatable {
    /// The form field's name and the input's id (`phoneNumber`). Stable: automation and tests post it. Names
    /// must differ between the factors of one server, since all enrolment forms share a page.
    public var name: String
    /// The label of the input (`Phone number`). A required field left empty reads "Enter your <label>.".
    public var label: String
    /// The HTML input type (`tel`, `email`, `text`).
    public var inputType: String
    /// The HTML `autocomplete` token (`tel`), if any.
    public var autocomplete: String?
    /// A hint shown under the label (`In international format, for example +15555550100.`), if any.
    public var hint: String?
    /// Whether the enrolment cannot start without a value.
    public var required: Bool
    /// The member of the enrolment info that receives the value (defaults to ``name``).
    public var infoKey: String
    /// How the typed value is cleaned before it is sent, if at all.
    public var normalization: FactorInputNormalization?

    /// A field with every part given; `infoKey` defaults to `name`.
    public init(
        name: String, label: String, inputType: String = "text", autocomplete: String? = nil, hint: String? = nil,
        required: Bool = true, infoKey: String? = nil, normalization: FactorInputNormalization? = nil
    ) {
        self.name = name
        self.label = label
        self.inputType = inputType
        self.autocomplete = autocomplete
        self.hint = hint
        self.required = required
        self.infoKey = infoKey ?? name
        self.normalization = normalization
    }

    /// `typed` as the factor receives it: trimmed of surrounding white space, then normalized.
    public func normalized(_ typed: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let trimmed = String(typed.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
        return normalization?.apply(to: trimmed) ?? trimmed
    }
}

/// A declared clean-up of a typed value (``FactorInputField/normalization``), named in JSON by its raw value.
public enum FactorInputNormalization: String, Sendable, CaseIterable {
    /// Removes the spaces, tabs, dashes, dots and parentheses people write in phone numbers
    /// (`+1 (555) 555-0100` → `+15555550100`); anything else is kept for the factor to judge.
    case stripSeparators = "strip-separators"

    /// `value` cleaned.
    public func apply(to value: String) -> String {
        switch self {
        case .stripSeparators: String(value.filter { !" -.()\t".contains($0) })
        }
    }
}
