import TesseraJSON

/// Reading and writing `testPhoneNumbers`: a map from E.164 numbers to the 6-digit code that signs them in without
/// an SMS (API §4).
enum TestPhoneNumbers {
    /// The most test numbers a project or tenant may have.
    static let maximumCount = 10

    /// Reads the map. Not an object: `INVALID_ARGUMENT`; more than ten entries:
    /// `MAXIMUM_TEST_PHONE_NUMBER_EXCEEDED`; a key that is not E.164 or a value that is not a string of exactly six
    /// ASCII digits: `INVALID_TESTING_PHONE_NUMBER`. Details name the entry by position, never the number or code.
    static func read(_ value: JSONValue, at path: JSONPath) throws(AuthError) -> [String: String] {
        guard case .object(let object) = value else {
            throw AuthError(.invalidArgument, "\(path.named) must be an object mapping E.164 numbers to 6-digit codes")
        }
        guard object.count <= maximumCount else {
            throw AuthError(
                .maximumTestPhoneNumberExceeded, "\(path.named) has \(object.count) entries; at most \(maximumCount)"
            )
        }
        var numbers: [String: String] = [:]
        for (position, member) in object.enumerated() {
            guard PhoneNumber.isE164(member.key) else {
                throw AuthError(
                    .invalidTestingPhoneNumber,
                    "\(path.named) entry \(position): the key must be an E.164 number ('+' then 8 to 15 digits)"
                )
            }
            guard let code = member.value.stringValue, isSixDigits(code) else {
                throw AuthError(
                    .invalidTestingPhoneNumber, "\(path.named) entry \(position): the code must be a string of 6 digits"
                )
            }
            numbers[member.key] = code
        }
        return numbers
    }

    /// The map as a JSON object, numbers in ascending order so the stored text is stable.
    static func json(_ numbers: [String: String]) -> JSONObject {
        JSONObject(numbers.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONValue.string($0.value)) })
    }

    /// Whether the text is exactly six ASCII digits.
    private static func isSixDigits(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 6 && bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
