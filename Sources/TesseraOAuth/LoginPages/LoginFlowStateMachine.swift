/// The steps of a login flow as a value with no I/O: which form each step accepts, and which events may happen at
/// each step and where they lead. Every change of a flow's step goes through ``apply(_:)``; the handlers of the
/// pages ask ``action(for:)`` which of them a posted form goes to, do their I/O, and feed what came of it back
/// through ``LoginFlow``'s transition methods, which also set what the flow holds.
///
/// Forms, by step (`–`: refused; the browser is sent back to the page of its step, `303`, and nothing changes; `code`
/// and `resend` go to the verification and the resend of the step's own kind: phone sign-in, second factor, enrolment):
///
/// | step              | password | factor | code   | resend | enroll | phone  | phone/send | forgot/send |
/// |-------------------|----------|--------|--------|--------|--------|--------|------------|-------------|
/// | password          | check    | –      | –      | –      | –      | method | –          | reset       |
/// | phone_number      | –        | –      | –      | –      | –      | method | send       | reset       |
/// | phone_code        | –        | –      | phone  | phone  | –      | method | –          | reset       |
/// | choose_factor     | –        | choose | –      | –      | –      | –      | –          | reset       |
/// | second_factor     | –        | choose | factor | factor | –      | –      | –          | reset       |
/// | choose_enrollment | –        | –      | –      | –      | start  | –      | –          | reset       |
/// | enroll_factor     | –        | –      | enrol  | enrol  | –      | –      | –          | reset       |
/// | completed         | –        | –      | –      | –      | –      | –      | –          | –           |
///
/// Events, from the steps that allow them (any other step refuses them with ``LoginFlowRefusal``):
///
/// | event                          | from                                               | to                |
/// |--------------------------------|----------------------------------------------------|-------------------|
/// | phoneSignInChosen              | password, phone_number, phone_code                 | phone_number      |
/// | passwordChosen                 | password, phone_number, phone_code                 | password          |
/// | phoneCodeSent                  | phone_number, phone_code                           | phone_code        |
/// | enrollmentDemanded             | password, phone_code                               | choose_enrollment |
/// | secondFactorDemanded (one)     | password, phone_code                               | second_factor     |
/// | secondFactorDemanded (several) | password, phone_code                               | choose_factor     |
/// | factorChosen                   | choose_factor, second_factor                       | second_factor     |
/// | anotherFactorAsked             | choose_factor, second_factor                       | choose_factor     |
/// | enrollmentStarted              | choose_enrollment, enroll_factor                   | enroll_factor     |
/// | signedIn                       | password, phone_code, second_factor, enroll_factor | completed         |
/// | restarted                      | every step                                         | password          |
///
/// Nothing is accepted once the flow is completed. A completed flow keeps its last step in the database
/// (`oauth_login_flows.step`); completion is its `completed_at`.
struct LoginFlowStateMachine: Sendable, Equatable {
    /// What happened to a flow that moves it on.
    enum Event: Sendable, Equatable {
        /// Phone sign-in was chosen on the password page, or another number on the phone pages.
        case phoneSignInChosen
        /// E-mail and password were chosen on the phone pages (or again on the password page).
        case passwordChosen
        /// A phone sign-in code was sent to the typed number (a resend included).
        case phoneCodeSent
        /// The first factor passed and `MANDATORY` demands an enrolment first.
        case enrollmentDemanded
        /// The first factor passed and the user has `choices` second factors the pages can drive (at least one).
        case secondFactorDemanded(choices: Int)
        /// One of the user's second factors was chosen.
        case factorChosen
        /// The user went back to the choice of second factor (or posted a choice that is not one of theirs).
        case anotherFactorAsked
        /// An enrolment was started (or started again: a resend, or the backup factor after another).
        case enrollmentStarted
        /// The sign-in finished and its code is issued.
        case signedIn
        /// The flow's credential expired or was withdrawn (or it was stored by an older server): back to the start.
        case restarted
    }

    /// What a form posted back to the flow goes to at its current step.
    enum Action: Sendable, Equatable {
        /// `POST /oauth2/login/password`: check e-mail and password.
        case checkPassword
        /// `POST /oauth2/login/factor`: choose a second factor, or go back to the choice.
        case chooseFactor
        /// `POST /oauth2/login/code` at the second-factor step: finalize the sign-in with the code.
        case verifySecondFactor
        /// `POST /oauth2/login/code` while enrolling: finalize the enrolment with the code.
        case verifyEnrollment
        /// `POST /oauth2/login/code` at the phone code: sign in with the number.
        case verifyPhoneCode
        /// `POST /oauth2/login/resend` at the second-factor step: run the factor's sign-in start again.
        case resendSignInCode
        /// `POST /oauth2/login/resend` while enrolling: start the enrolment again with what was typed.
        case resendEnrollment
        /// `POST /oauth2/login/resend` at the phone code: another code to the same number.
        case resendPhoneCode
        /// `POST /oauth2/login/enroll`: start an enrolment.
        case startEnrollment
        /// `POST /oauth2/login/phone`: phone sign-in, or back to e-mail and password.
        case chooseMethod
        /// `POST /oauth2/login/phone/send`: send a code to the typed number.
        case sendPhoneCode
        /// `POST /oauth2/login/forgot/send`: mail a password-reset link (the flow stays where it is).
        case sendPasswordReset
        /// The form is not one of this step's: the browser goes back to the page of the flow's step.
        case showCurrentPage
    }

    /// The step the flow stands at: the page it shows, and what the database stores.
    private(set) var step: LoginStep
    /// Whether the flow has ended with its code issued; nothing is accepted after.
    private(set) var isCompleted: Bool

    /// A flow at `step` (a new flow: the password step), completed or not as stored.
    init(step: LoginStep = .password, isCompleted: Bool = false) {
        self.step = step
        self.isCompleted = isCompleted
    }

    /// What the form posted to `route` goes to at the current step; ``Action/showCurrentPage`` for a form the
    /// step does not accept, for every form once the flow is completed, and for routes that are not forms of a
    /// flow. Changes nothing: the handler's outcome is fed back through ``apply(_:)``.
    func action(for route: OAuthLogin.Route) -> Action {
        guard !isCompleted else { return .showCurrentPage }
        switch (route, step) {
        case (.password, .password): return .checkPassword
        case (.factor, .chooseFactor), (.factor, .secondFactor): return .chooseFactor
        case (.code, .secondFactor): return .verifySecondFactor
        case (.code, .enrollFactor): return .verifyEnrollment
        case (.code, .phoneCode): return .verifyPhoneCode
        case (.resend, .secondFactor): return .resendSignInCode
        case (.resend, .enrollFactor): return .resendEnrollment
        case (.resend, .phoneCode): return .resendPhoneCode
        case (.enroll, .chooseEnrollment): return .startEnrollment
        case (.phone, .password), (.phone, .phoneNumber), (.phone, .phoneCode): return .chooseMethod
        case (.sendPhoneCode, .phoneNumber): return .sendPhoneCode
        case (.sendPasswordReset, _): return .sendPasswordReset
        default: return .showCurrentPage
        }
    }

    /// Moves the flow on by `event` as the table above says; throws, changing nothing, when the flow's step (or its
    /// completion) does not allow the event.
    mutating func apply(_ event: Event) throws(LoginFlowRefusal) {
        guard !isCompleted else { throw LoginFlowRefusal(event: event, step: step, isCompleted: true) }
        switch (event, step) {
        case (.phoneSignInChosen, .password), (.phoneSignInChosen, .phoneNumber), (.phoneSignInChosen, .phoneCode):
            step = .phoneNumber
        case (.passwordChosen, .password), (.passwordChosen, .phoneNumber), (.passwordChosen, .phoneCode):
            step = .password
        case (.phoneCodeSent, .phoneNumber), (.phoneCodeSent, .phoneCode):
            step = .phoneCode
        case (.enrollmentDemanded, .password), (.enrollmentDemanded, .phoneCode):
            step = .chooseEnrollment
        case (.secondFactorDemanded(let choices), .password), (.secondFactorDemanded(let choices), .phoneCode):
            step = choices == 1 ? .secondFactor : .chooseFactor
        case (.factorChosen, .chooseFactor), (.factorChosen, .secondFactor):
            step = .secondFactor
        case (.anotherFactorAsked, .chooseFactor), (.anotherFactorAsked, .secondFactor):
            step = .chooseFactor
        case (.enrollmentStarted, .chooseEnrollment), (.enrollmentStarted, .enrollFactor):
            step = .enrollFactor
        case (.signedIn, .password), (.signedIn, .phoneCode), (.signedIn, .secondFactor), (.signedIn, .enrollFactor):
            isCompleted = true
        case (.restarted, _):
            step = .password
        default:
            throw LoginFlowRefusal(event: event, step: step, isCompleted: false)
        }
    }
}

/// An event the login flow's step does not allow (``LoginFlowStateMachine/apply(_:)``). The handlers only feed
/// events their form was accepted for, so this is a bug; it names no secret, so it may be logged.
struct LoginFlowRefusal: Error, Equatable, CustomStringConvertible {
    /// The event refused.
    let event: LoginFlowStateMachine.Event
    /// The step the flow stood at.
    let step: LoginStep
    /// Whether the flow was completed.
    let isCompleted: Bool

    var description: String {
        "login flow event \(event) refused at step \(step.rawValue)\(isCompleted ? " (completed)" : "")"
    }
}
