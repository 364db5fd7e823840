/// How Tessera's own login pages (`/oauth2/login`) drive a factor, declared as plain data so that a factor served
/// remotely can send it as JSON (``init(json:at:)``, ``json``). The pages contain no factor names: every text,
/// field and control a factor needs on them comes from here, and the rest from the descriptor's members.
///
/// The pages use it at four places:
/// - the enrolment choice (`MANDATORY` without an enrolment): a form `enroll-ID-form` with the hidden `factor` =
///   id, the ``enrollFields`` the user types, and a button `enroll-ID` named `enrollId` labelled ``enrollButton``;
/// - the enrolment page: ``enrollTitle``, ``enrollInstructions`` (or the factor's ``EnrollmentDisplay``), the QR
///   code and key of the display when it has them, the ``code`` field and, with ``resend``, "Send a new code";
/// - the choice among enrolments at sign-in, naming each by ``enrollmentLabel``;
/// - the sign-in code page: ``signInInstructions``, the ``code`` field and, with ``resend`` and a sign-in start
///   step (``FactorDescriptor/signInStart``), "Send a new code".
///
/// The `sessionInfo` of a start step is read where the protocol puts it: in the result member of the step
/// (``FactorDescriptor/enrollmentResult``, ``SignInStartMembers/result``), under `sessionInfo`; the code page posts
/// it back in the verification info beside the code.
///
/// Texts are templates: `{key}` is replaced by a value, and a template with a placeholder that has no string value
/// is not used (the page falls back to a generic text). What a placeholder reads is said at each template.
public struct FactorLoginPages: Sendable, Equatable {
    /// The label of the button that starts an enrolment on the choice page (`Use an authenticator app`).
    public var enrollButton: String
    /// The fields the user fills in before the enrolment starts (`phoneNumber`), in order; empty when there are
    /// none (TOTP). Each becomes a member of the factor's ``FactorDescriptor/enrollmentInfo``.
    public var enrollFields: [FactorInputField]
    /// The title of the enrolment page (`Confirm your phone number`).
    public var enrollTitle: String
    /// The instructions of the enrolment page; `{name}` reads the value typed into the field `name`, as
    /// normalized (`Enter the 6-digit code we sent by SMS to {phoneNumber}.`). Nil: the page shows the
    /// instructions of the factor's ``EnrollmentDisplay``.
    public var enrollInstructions: String?
    /// How the sign-in choice names an enrolment; `{key}` reads the string member `key` of the enrolment's public
    /// info as a challenge shows it, masked (`SMS to {phoneInfo}`). Without a value the descriptor's
    /// ``FactorDescriptor/displayName`` is used.
    public var enrollmentLabel: String
    /// The instructions of the sign-in code page; `{key}` reads the masked public info, as ``enrollmentLabel``
    /// (`Enter the 6-digit code we sent by SMS to {phoneInfo}.`).
    public var signInInstructions: String
    /// The code field of both code pages and where its value goes.
    public var code: FactorCodeField
    /// Whether the code pages offer "Send a new code": at enrolment it starts the enrolment again with the same
    /// typed fields; at sign-in it repeats the start step (only factors with one). Factors that send something
    /// (SMS, e-mail) set it; TOTP does not.
    public var resend: Bool

    /// Pages with every part given.
    public init(
        enrollButton: String, enrollFields: [FactorInputField] = [], enrollTitle: String,
        enrollInstructions: String? = nil, enrollmentLabel: String, signInInstructions: String,
        code: FactorCodeField, resend: Bool = false
    ) {
        self.enrollButton = enrollButton
        self.enrollFields = enrollFields
        self.enrollTitle = enrollTitle
        self.enrollInstructions = enrollInstructions
        self.enrollmentLabel = enrollmentLabel
        self.signInInstructions = signInInstructions
        self.code = code
        self.resend = resend
    }

    /// `template` with every `{key}` replaced by `value(key)`; nil when a placeholder has no value. A `{` without
    /// a closing `}` is kept as it is.
    public static func fill(_ template: String, _ value: (String) -> String?) -> String? {
        var text = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            text += rest[..<open]
            guard let filled = value(String(rest[rest.index(after: open)..<close])) else { return nil }
            text += filled
            rest = rest[rest.index(after: close)...]
        }
        return text + rest
    }
}
