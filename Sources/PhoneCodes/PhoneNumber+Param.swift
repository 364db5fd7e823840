public import TesseraCore

extension PhoneNumber {
    /// A `phoneNumber` param of a method that sends an SMS code (phone sign-in's `accounts.sendVerificationCode`,
    /// the SMS factor's `mfaEnrollment.start`): `MISSING_PHONE_NUMBER` when absent or empty, `INVALID_PHONE_NUMBER`
    /// unless E.164 (``PhoneNumber/isE164(_:)``).
    public static func checkedParam(_ phoneNumber: String?) throws(AuthError) -> String {
        guard let phoneNumber, !phoneNumber.isEmpty else {
            throw AuthError(.missingPhoneNumber, "phoneNumber is required.")
        }
        guard PhoneNumber.isE164(phoneNumber) else {
            throw AuthError(.invalidPhoneNumber, "phoneNumber must be E.164: + then 8 to 15 digits, the first not 0")
        }
        return phoneNumber
    }
}
