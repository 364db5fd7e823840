public import TesseraJSON

/// How a factor's verification info names one of the user's enrolments without its id (API §4: `mfaSignIn.finalize`
/// may name an SMS enrolment by its number, full or masked): the info member `infoKey` names the enrolment whose
/// public info, or masked public info, has the same string under `publicInfoKey`. Plain data, so a factor service
/// declares it in its descriptor (`{"infoKey": "phoneNumber", "publicInfoKey": "phoneInfo"}`).
public struct EnrollmentReference: Sendable, Equatable {
    /// The member of the verification info that names the enrolment.
    public var infoKey: String
    /// The member of the enrolment's public info it is compared with.
    public var publicInfoKey: String

    /// A reference with both keys given.
    public init(infoKey: String, publicInfoKey: String) {
        self.infoKey = infoKey
        self.publicInfoKey = publicInfoKey
    }

    /// Reads `{infoKey, publicInfoKey}`; nil when either is missing or not a string.
    public init?(json: JSONObject) {
        guard let infoKey = json["infoKey"]?.stringValue, let publicInfoKey = json["publicInfoKey"]?.stringValue,
            !infoKey.isEmpty, !publicInfoKey.isEmpty
        else { return nil }
        self.init(infoKey: infoKey, publicInfoKey: publicInfoKey)
    }

    /// The JSON form.
    public var json: JSONObject {
        ["infoKey": .string(infoKey), "publicInfoKey": .string(publicInfoKey)]
    }

    /// Whether `text` names `enrollment`: its public info or masked public info holds `text` under the key.
    public func names(_ text: String, _ enrollment: Enrollment) -> Bool {
        enrollment.publicInfo[publicInfoKey]?.stringValue == text
            || enrollment.maskedInfo?[publicInfoKey]?.stringValue == text
    }

    /// The one enrolment among `enrollments` that `info` names; nil when it names none, or several (a mask two
    /// numbers share).
    public func enrollment(named info: JSONObject, among enrollments: [Enrollment]) -> Enrollment? {
        guard let text = info[infoKey]?.stringValue, !text.isEmpty else { return nil }
        let matches = enrollments.filter { names(text, $0) }
        return matches.count == 1 ? matches.first : nil
    }
}
