import TesseraCore

/// What went wrong with a submitted form, to show on the page (in the page's language): messages next to named
/// fields, and one for the form as a whole.
struct FormErrors: Sendable, Equatable {
    /// Field name → message.
    var fields: [String: LocalizedText] = [:]
    /// A message that belongs to no single field.
    var general: LocalizedText?

    /// No errors.
    static let none = FormErrors()

    /// An error next to `field`.
    static func field(_ field: String, _ message: LocalizedText) -> FormErrors {
        FormErrors(fields: [field: message])
    }

    /// An error of the whole form.
    static func general(_ message: LocalizedText) -> FormErrors {
        FormErrors(general: message)
    }
}
