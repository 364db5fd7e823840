/// What went wrong with a submitted form, to show on the page: messages next to named fields, and one for the
/// form as a whole.
struct FormErrors: Sendable, Equatable {
    /// Field name → message.
    var fields: [String: String] = [:]
    /// A message that belongs to no single field.
    var general: String?

    /// No errors.
    static let none = FormErrors()

    /// An error next to `field`.
    static func field(_ field: String, _ message: String) -> FormErrors {
        FormErrors(fields: [field: message])
    }

    /// An error of the whole form.
    static func general(_ message: String) -> FormErrors {
        FormErrors(general: message)
    }
}
