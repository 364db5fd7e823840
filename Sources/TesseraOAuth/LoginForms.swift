import TesseraCore
import TesseraHTTP
import TesseraJSON

/// The forms of the login pages, one per step. Field names are the stable ones of API §6 (`email`, `password`,
/// `code`, `mfaEnrollmentId`, `phoneNumber`); every form, field and button has a stable id for automation, and
/// every form posts back the hidden `flow` and `csrf` inputs.
struct LoginForms {
    let flowID: String
    let csrf: String

    /// E-mail and password.
    func password(email: String?, errors: FormErrors) -> String {
        LoginPageLayout.document(
            title: "Sign in",
            content: LoginPageLayout.alert(errors.general)
                + form("password-form", action: "/oauth2/login/password") {
                    LoginPageLayout.field(
                        id: "email", label: "E-mail address", type: "email", autocomplete: "username", value: email,
                        error: errors.fields["email"])
                        + LoginPageLayout.field(
                            id: "password", label: "Password", type: "password", autocomplete: "current-password",
                            error: errors.fields["password"])
                        + button("sign-in", "Sign in")
                })
    }

    /// A choice among several second factors.
    func chooseFactor(_ factors: [MfaEnrollment], errors: FormErrors) -> String {
        let options = factors.enumerated().map { index, enrollment in
            let id = "factor-\(index + 1)"
            return #"<div><input type="radio" id="\#(id)" name="mfaEnrollmentId" "#
                + #"value="\#(HTML.escape(enrollment.mfaEnrollmentId))" required\#(index == 0 ? " checked" : "")>"#
                + #" <label for="\#(id)">\#(HTML.escape(Self.describe(enrollment)))</label></div>"#
        }
        let error = errors.fields["mfaEnrollmentId"].map {
            #"<p id="mfaEnrollmentId-error" class="error" role="alert">\#(HTML.escape($0))</p>"#
        } ?? ""
        return LoginPageLayout.document(
            title: "Confirm it's you",
            content: LoginPageLayout.alert(errors.general)
                + form("factor-form", action: "/oauth2/login/factor") {
                    #"<fieldset id="factors"\#(error.isEmpty ? "" : #" aria-describedby="mfaEnrollmentId-error""#)>"#
                        + "<legend>Choose how to confirm it's you</legend>" + options.joined() + error
                        + "</fieldset>" + button("continue", "Continue")
                })
    }

    /// The code of the chosen second factor; for SMS, a resend control; with several factors, a way back.
    func secondFactor(_ enrollment: MfaEnrollment?, canChooseAnother: Bool, errors: FormErrors) -> String {
        let isPhone = enrollment.map(Self.isPhone) ?? false
        let number = enrollment?.factorInfo["phoneInfo"]?.stringValue ?? "your phone"
        let lead =
            isPhone
            ? "Enter the 6-digit code we sent by SMS to \(number)."
            : "Enter the 6-digit code your authenticator app shows."
        var content = LoginPageLayout.alert(errors.general) + #"<p id="instructions">\#(HTML.escape(lead))</p>"#
        content += codeForm(errors: errors)
        if isPhone { content += resendForm() }
        if canChooseAnother {
            content += form("another-factor-form", action: "/oauth2/login/factor") {
                button("choose-another", "Use another method", name: "chooseAnother")
            }
        }
        return LoginPageLayout.document(title: "Enter your code", content: content)
    }

    /// The choice of a factor to enrol, when `MANDATORY` demands one.
    func chooseEnrollment(offers: [String], phoneNumber: String?, errors: FormErrors) -> String {
        var content =
            LoginPageLayout.alert(errors.general)
            + #"<p id="instructions">Your account must be protected with a second factor. Set one up to continue.</p>"#
        if offers.contains("totp") {
            content += form("enroll-totp-form", action: "/oauth2/login/enroll") {
                #"<input type="hidden" name="factor" value="totp">"#
                    + button("enroll-totp", "Use an authenticator app", name: "enrollTotp")
            }
        }
        if offers.contains("phone") {
            content += form("enroll-phone-form", action: "/oauth2/login/enroll") {
                #"<input type="hidden" name="factor" value="phone">"#
                    + LoginPageLayout.field(
                        id: "phoneNumber", label: "Phone number", type: "tel", autocomplete: "tel",
                        value: phoneNumber, error: errors.fields["phoneNumber"],
                        hint: "In international format, for example +15555550100.")
                    + button("enroll-phone", "Send a code by SMS", name: "enrollPhone")
            }
        }
        if offers.isEmpty {
            content += LoginPageLayout.alert("No second factor can be set up here. Contact your administrator.")
        }
        return LoginPageLayout.document(title: "Set up a second factor", content: content)
    }

    /// TOTP enrolment: the QR code, the key in text, the instructions, then a code.
    func enrollTOTP(_ challenge: LoginChallenge, errors: FormErrors) -> String {
        var content = LoginPageLayout.alert(errors.general)
        content += #"<p id="instructions">\#(HTML.escape(challenge.instructions ?? ""))</p>"#
        if let svg = challenge.qrCodeSVG {
            content +=
                #"<figure id="qr-code" class="qr-code" role="img" "#
                + #"aria-label="QR code for your authenticator app">"# + svg + "</figure>"
        }
        if let key = challenge.manualEntryKey {
            content += #"<p>Or type in this key: <code id="manual-entry-key">\#(HTML.escape(key))</code></p>"#
        }
        content += codeForm(errors: errors)
        return LoginPageLayout.document(title: "Set up your authenticator app", content: content)
    }

    /// Phone enrolment: the code sent to the new number, with a resend control.
    func enrollPhone(_ challenge: LoginChallenge, errors: FormErrors) -> String {
        let number = challenge.phoneNumber ?? "your phone"
        var content =
            LoginPageLayout.alert(errors.general)
            + #"<p id="instructions">Enter the 6-digit code we sent by SMS to \#(HTML.escape(number)).</p>"#
        content += codeForm(errors: errors) + resendForm()
        return LoginPageLayout.document(title: "Confirm your phone number", content: content)
    }

    private func codeForm(errors: FormErrors) -> String {
        form("code-form", action: "/oauth2/login/code") {
            LoginPageLayout.field(
                id: "code", label: "Verification code", type: "text", autocomplete: "one-time-code",
                error: errors.fields["code"],
                extra: #"inputmode="numeric" pattern="[0-9]*" maxlength="6" spellcheck="false""#)
                + button("verify", "Verify")
        }
    }

    private func resendForm() -> String {
        form("resend-form", action: "/oauth2/login/resend") { button("resend", "Send a new code") }
    }

    private func form(_ id: String, action: String, _ fields: () -> String) -> String {
        #"<form id="\#(id)" method="post" action="\#(action)">"#
            + LoginPageLayout.hiddenInputs(flowID: flowID, csrf: csrf) + fields() + "</form>"
    }

    private func button(_ id: String, _ label: String, name: String? = nil) -> String {
        #"<button id="\#(id)" name="\#(name ?? id)" type="submit">\#(HTML.escape(label))</button>"#
    }

    /// How an enrolment is named on the page: its display name and kind, with the masked number of a phone.
    static func describe(_ enrollment: MfaEnrollment) -> String {
        let kind: String
        if let phone = enrollment.factorInfo["phoneInfo"]?.stringValue {
            kind = "SMS to \(phone)"
        } else if enrollment.factorInfo["totpInfo"] != nil {
            kind = "Authenticator app"
        } else {
            kind = "Second factor"
        }
        guard let name = enrollment.displayName, !name.isEmpty else { return kind }
        return "\(name) (\(kind))"
    }

    /// Whether `enrollment` is an SMS factor.
    static func isPhone(_ enrollment: MfaEnrollment) -> Bool {
        enrollment.factorInfo["phoneInfo"] != nil
    }

    /// The factor id of `enrollment` (`phone`, `totp`), or nil for factors the pages cannot drive.
    static func factorID(of enrollment: MfaEnrollment) -> String? {
        if enrollment.factorInfo["phoneInfo"] != nil { return "phone" }
        if enrollment.factorInfo["totpInfo"] != nil { return "totp" }
        return nil
    }
}
