import MultiFactor
import TesseraCore
import TesseraHTTP
import TesseraJSON

/// The forms of the login pages, one per step. Field names are the stable ones of API §6 (`email`, `password`,
/// `code`, `mfaEnrollmentId`, and the enrolment fields factors declare, such as `phoneNumber`); every form, field
/// and button has a stable id for automation, and every form posts back the hidden `flow` and `csrf` inputs. The
/// forms name no factor: what a factor needs is in its ``FactorLoginPages``.
struct LoginForms {
    let flowID: String
    let csrf: String
    /// The proof of work asked before a code goes to an address the user typed.
    var proofOfWork = LoginProofOfWork.standard

    /// E-mail and password, saying which app asks (`clientName`) for an account of which realm (the tenant's
    /// display name, or the project's).
    func password(
        email: String?, errors: FormErrors, asker: (client: String, realm: String), offersPhone: Bool = false
    ) -> String {
        LoginPageLayout.document(
            title: "Sign in",
            content: LoginPageLayout.paragraph(
                LocalizedText(
                    "{client} asks you to sign in with your {realm} account.",
                    ["client": asker.client, "realm": asker.realm]),
                id: "asker")
                + LoginPageLayout.alert(errors.general)
                + form("password-form", action: "/oauth2/login/password") {
                    LoginPageLayout.field(
                        id: "email", label: "E-mail address", type: "email", autocomplete: "username", value: email,
                        error: errors.fields["email"])
                        + LoginPageLayout.field(
                            id: "password", label: "Password", type: "password", autocomplete: "current-password",
                            error: errors.fields["password"])
                        + button("sign-in", "Sign in")
                }
                + #"<p><a id="forgot-password" href="/oauth2/login/forgot?flow=\#(PercentEncoding.encode(flowID))">"#
                + HTML.escape(Texts.current("Forgot your password?")) + "</a></p>"
                + (offersPhone ? phoneChoice() : ""))
    }

    /// The password page's way to phone sign-in, where the tenant allows it.
    func phoneChoice() -> String {
        form("phone-choice-form", action: "/oauth2/login/phone") {
            #"<input type="hidden" name="method" value="phone">"# + button("use-phone", "Sign in with a phone number")
        }
    }

    /// Phone sign-in: the number to send a code to (with the page's proof of work), and the way back to e-mail and
    /// password.
    func phoneNumber(typed: String?, errors: FormErrors) -> String {
        let proof =
            proofOfWork.bits == 0
            ? ""
            : #" data-pow-bits="\#(proofOfWork.bits)" data-pow-challenge="\#(LoginProofOfWork.challenge(flowID: flowID))""#
                + #" data-pow-fields="phoneNumber""#
        return LoginPageLayout.document(
            title: "Sign in with your phone",
            content: LoginPageLayout.alert(errors.general)
                + LoginPageLayout.paragraph("We will send a code by SMS to this number.", id: "instructions")
                + form("phone-number-form", action: "/oauth2/login/phone/send", attributes: proof) {
                    (proof.isEmpty ? "" : #"<input type="hidden" name="pow-nonce" value="">"#)
                        + LoginPageLayout.field(
                            id: "phoneNumber", label: "Phone number", type: "tel", autocomplete: "tel", value: typed,
                            error: errors.fields["phoneNumber"],
                            hint: "In international format, for example +15555550100.",
                            // The country hint: an example number of the page language's country.
                            extra: #"placeholder="\#(HTML.escape(Texts.current("+1 555 555 0100")))""#)
                        + button("send-code", "Send the code")
                }
                + form("password-choice-form", action: "/oauth2/login/phone") {
                    #"<input type="hidden" name="method" value="password">"#
                        + button("use-password", "Use e-mail and password")
                },
            script: !proof.isEmpty)
    }

    /// Phone sign-in: the code sent to `number`, a resend, and a way to another number.
    func phoneCode(number: String, errors: FormErrors) -> String {
        LoginPageLayout.document(
            title: "Enter your code",
            content: LoginPageLayout.alert(errors.general)
                + LoginPageLayout.paragraph(
                    LocalizedText("Enter the 6-digit code we sent by SMS to {phoneNumber}.", ["phoneNumber": number]),
                    id: "instructions")
                + codeForm(FactorCodeField(infoKey: "code"), errors: errors) + resendForm()
                + form("another-number-form", action: "/oauth2/login/phone") {
                    #"<input type="hidden" name="method" value="phone">"#
                        + button("another-number", "Use another number")
                })
    }

    /// The address to mail a password-reset link to, and the way back to the password page.
    func forgotPassword(email: String?, errors: FormErrors) -> String {
        LoginPageLayout.document(
            title: "Reset your password",
            content: LoginPageLayout.alert(errors.general)
                + LoginPageLayout.paragraph(
                    "Enter the e-mail address of your account. We will send it a link to choose a new password.",
                    id: "instructions")
                + form("forgot-form", action: "/oauth2/login/forgot/send") {
                    LoginPageLayout.field(
                        id: "email", label: "E-mail address", type: "email", autocomplete: "username", value: email,
                        error: errors.fields["email"])
                        + button("send-reset", "Send the link")
                }
                + backToSignIn())
    }

    /// Said once a reset was asked for `email`, whether or not it has an account.
    func resetSent(email: String) -> String {
        LoginPageLayout.document(
            title: "Check your e-mail",
            content: LoginPageLayout.paragraph(
                LocalizedText(
                    "If {email} belongs to an account, we have sent it a link to choose a new password. The link "
                        + "works once, for one hour.", ["email": email]),
                id: "reset-sent") + backToSignIn())
    }

    /// A link back to the page of the flow.
    private func backToSignIn() -> String {
        #"<p><a id="back-to-sign-in" href="/oauth2/login?flow=\#(PercentEncoding.encode(flowID))">"#
            + HTML.escape(Texts.current("Back to sign-in")) + "</a></p>"
    }

    /// A choice among several second factors, each enrolment named by `label`.
    func chooseFactor(_ factors: [(enrollment: MFAEnrollment, label: String)], errors: FormErrors) -> String {
        let options = factors.enumerated().map { index, choice in
            let id = "factor-\(index + 1)"
            let enrollmentID = choice.enrollment.mfaEnrollmentId
            let label = Self.describe(choice.enrollment, as: choice.label)
            return #"<div><input type="radio" id="\#(id)" name="mfaEnrollmentId" "#
                + #"value="\#(HTML.escape(enrollmentID))" required\#(index == 0 ? " checked" : "")>"#
                + #" <label for="\#(id)">\#(HTML.escape(label))</label></div>"#
        }
        let error: String =
            errors.fields["mfaEnrollmentId"].map { message in
                #"<p id="mfaEnrollmentId-error" class="error" role="alert">"# + HTML.escape(Texts.current(message))
                    + "</p>"
            } ?? ""
        let describedBy = error.isEmpty ? "" : #" aria-describedby="mfaEnrollmentId-error""#
        let legend = "<legend>" + HTML.escape(Texts.current("Choose how to confirm it's you")) + "</legend>"
        return LoginPageLayout.document(
            title: "Confirm it's you",
            content: LoginPageLayout.alert(errors.general)
                + form("factor-form", action: "/oauth2/login/factor") {
                    #"<fieldset id="factors"\#(describedBy)>"# + legend + options.joined() + error + "</fieldset>"
                        + button("continue", "Continue")
                })
    }

    /// The code of the chosen second factor, with its factor's instructions; a resend control when the factor
    /// declares one and has a start step to repeat; with several factors, a way back.
    func secondFactor(
        _ enrollment: MFAEnrollment?, factor: PageFactor?, canChooseAnother: Bool, errors: FormErrors
    ) -> String {
        let lead =
            factor.flatMap { factor in
                FactorLoginPages.fill(Texts.current(factor.pages.signInInstructions)) {
                    enrollment?.factorInfo[$0]?.stringValue
                }
            } ?? Texts.current("Enter your verification code.")
        var content = LoginPageLayout.alert(errors.general) + #"<p id="instructions">\#(HTML.escape(lead))</p>"#
        content += codeForm(factor?.pages.code, errors: errors)
        if let factor, factor.pages.resend, factor.descriptor.signInStart != nil { content += resendForm() }
        if canChooseAnother {
            content += form("another-factor-form", action: "/oauth2/login/factor") {
                button("choose-another", "Use another method", name: "chooseAnother")
            }
        }
        return LoginPageLayout.document(title: "Enter your code", content: content)
    }

    /// The choice of a factor to enrol, when `MANDATORY` demands one: per factor a form `enroll-ID-form` with the
    /// hidden `factor`, its fields (refilled from `typed`) and a button `enroll-ID` named `enrollId`. An error of
    /// a field no form shows is shown above them. A form with fields (an address a code will be sent to) asks for
    /// a proof of work: `data-pow-*` attributes and a hidden `pow-nonce`, which `login.js` fills.
    func chooseEnrollment(offers: [PageFactor], typed: [String: String], errors: FormErrors) -> String {
        let shownFields = Set(offers.flatMap { $0.pages.enrollFields.map(\.name) })
        let stray = errors.fields.filter { !shownFields.contains($0.key) }.sorted { $0.key < $1.key }.first?.value
        var content =
            LoginPageLayout.alert(errors.general ?? stray)
            + LoginPageLayout.paragraph(
                "Your account must be protected with a second factor. Set one up to continue.", id: "instructions")
        for factor in offers {
            let id = factor.id
            let typedFields = factor.pages.enrollFields.map(\.name)
            let proof =
                typedFields.isEmpty || proofOfWork.bits == 0
                ? ""
                : #" data-pow-bits="\#(proofOfWork.bits)" data-pow-challenge="\#(LoginProofOfWork.challenge(flowID: flowID))""#
                    + #" data-pow-fields="\#(HTML.escape(typedFields.joined(separator: " ")))""#
            content += form("enroll-\(id)-form", action: "/oauth2/login/enroll", attributes: proof) {
                #"<input type="hidden" name="factor" value="\#(HTML.escape(id))">"#
                    + (proof.isEmpty ? "" : #"<input type="hidden" name="pow-nonce" value="">"#)
                    + factor.pages.enrollFields.map { field in
                        LoginPageLayout.field(
                            id: field.name, label: LocalizedText(field.label), type: field.inputType,
                            autocomplete: field.autocomplete, value: typed[field.name],
                            error: errors.fields[field.name], hint: field.hint.map { LocalizedText($0) },
                            required: field.required)
                    }.joined()
                    + button("enroll-\(id)", LocalizedText(factor.pages.enrollButton), name: Self.enrollButtonName(id))
            }
        }
        if offers.isEmpty {
            content += LoginPageLayout.alert("No second factor can be set up here. Contact your administrator.")
        }
        let asksProof = proofOfWork.bits > 0 && offers.contains { !$0.pages.enrollFields.isEmpty }
        return LoginPageLayout.document(title: "Set up a second factor", content: content, script: asksProof)
    }

    /// The enrolment of `factor`: the instructions (the factor's, filled from what the user typed, or its
    /// display's), the QR code and the key when its display has them, then a code, and a resend control when the
    /// factor declares one.
    func enrollFactor(_ factor: PageFactor?, _ challenge: LoginChallenge, errors: FormErrors) -> String {
        let instructions =
            factor?.pages.enrollInstructions.flatMap { template in
                FactorLoginPages.fill(Texts.current(template)) { challenge.fields?[$0] }
            } ?? challenge.instructions.map { Texts.current($0) } ?? ""
        var content = LoginPageLayout.alert(errors.general)
        content += #"<p id="instructions">\#(HTML.escape(instructions))</p>"#
        if let svg = challenge.qrCodeSVG {
            content +=
                #"<figure id="qr-code" class="qr-code" role="img" aria-label=""#
                + HTML.escape(Texts.current("QR code to scan")) + #"">"# + svg + "</figure>"
        }
        if let key = challenge.manualEntryKey, factor?.descriptor.isBackup == true {
            // A backup factor's key is its set of codes, shown once: one per line.
            content +=
                #"<ol id="recovery-codes">"#
                + key.split(separator: " ").map { "<li><code>" + HTML.escape(String($0)) + "</code></li>" }.joined()
                + "</ol>"
        } else if let key = challenge.manualEntryKey {
            content +=
                "<p>" + HTML.escape(Texts.current("Or type in this key:"))
                + #" <code id="manual-entry-key">\#(HTML.escape(key))</code></p>"#
        }
        content += codeForm(factor?.pages.code, errors: errors)
        if factor?.pages.resend == true { content += resendForm() }
        let title = factor.map { LocalizedText($0.pages.enrollTitle) } ?? "Set up your second factor"
        return LoginPageLayout.document(title: title, content: content)
    }

    /// The code form; its field is always `code`, labelled and sized as the factor declares.
    private func codeForm(_ code: FactorCodeField?, errors: FormErrors) -> String {
        form("code-form", action: "/oauth2/login/code") {
            LoginPageLayout.field(
                id: "code", label: LocalizedText(code?.label ?? "Verification code"), type: "text",
                autocomplete: "one-time-code",
                error: errors.fields["code"],
                extra: (code?.isNumeric ?? true
                    ? #"inputmode="numeric" pattern="[0-9]*" "# : #"autocapitalize="none" "#)
                    + #"maxlength="\#(code?.length ?? 6)" spellcheck="false""#)
                + button("verify", "Verify")
        }
    }

    private func resendForm() -> String {
        form("resend-form", action: "/oauth2/login/resend") { button("resend", "Send a new code") }
    }

    private func form(_ id: String, action: String, attributes: String = "", _ fields: () -> String) -> String {
        #"<form id="\#(id)" method="post" action="\#(action)"\#(attributes)>"#
            + LoginPageLayout.hiddenInputs(flowID: flowID, csrf: csrf) + fields() + "</form>"
    }

    private func button(_ id: String, _ label: LocalizedText, name: String? = nil) -> String {
        #"<button id="\#(id)" name="\#(name ?? id)" type="submit">\#(HTML.escape(Texts.current(label)))</button>"#
    }

    /// How an enrolment is named on the page: its display name and its factor's `label`.
    static func describe(_ enrollment: MFAEnrollment, as label: String) -> String {
        guard let name = enrollment.displayName, !name.isEmpty else { return label }
        return "\(name) (\(label))"
    }

    /// The name of the button that enrols factor `id`: `enroll` and the id with its first letter capitalized
    /// (`enrollTotp`, `enrollPhone`).
    static func enrollButtonName(_ id: String) -> String {
        "enroll" + id.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
