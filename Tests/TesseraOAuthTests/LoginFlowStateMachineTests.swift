import FoundationEssentials
import TesseraCore
import TesseraJSON
import Testing

@testable import TesseraOAuth

/// The login flow's state machine fed events without a database: every form at every step, every event at every
/// step (allowed ones lead where the table says, the others are refused and change nothing), completion, and what
/// ``LoginFlow``'s transitions keep.
@Suite struct LoginFlowStateMachineTests {
    typealias Machine = LoginFlowStateMachine
    typealias Event = LoginFlowStateMachine.Event

    static let steps: [LoginStep] = [
        .password, .phoneNumber, .phoneCode, .chooseFactor, .secondFactor, .chooseEnrollment, .enrollFactor,
    ]
    static let events: [Event] = [
        .phoneSignInChosen, .passwordChosen, .phoneCodeSent, .enrollmentDemanded, .secondFactorDemanded(choices: 1),
        .secondFactorDemanded(choices: 2), .factorChosen, .anotherFactorAsked, .enrollmentStarted, .signedIn,
        .restarted,
    ]

    /// Where an event leads.
    enum Outcome: Equatable {
        case step(LoginStep)
        case completed
    }

    /// The allowed transitions, written out independently of the machine: (event, from) → outcome.
    static let transitions: [(Event, LoginStep, Outcome)] = {
        var table: [(Event, LoginStep, Outcome)] = []
        for from in [LoginStep.password, .phoneNumber, .phoneCode] {
            table.append((.phoneSignInChosen, from, .step(.phoneNumber)))
            table.append((.passwordChosen, from, .step(.password)))
        }
        for from in [LoginStep.phoneNumber, .phoneCode] { table.append((.phoneCodeSent, from, .step(.phoneCode))) }
        for from in [LoginStep.password, .phoneCode] {
            table.append((.enrollmentDemanded, from, .step(.chooseEnrollment)))
            table.append((.secondFactorDemanded(choices: 1), from, .step(.secondFactor)))
            table.append((.secondFactorDemanded(choices: 2), from, .step(.chooseFactor)))
        }
        for from in [LoginStep.chooseFactor, .secondFactor] {
            table.append((.factorChosen, from, .step(.secondFactor)))
            table.append((.anotherFactorAsked, from, .step(.chooseFactor)))
        }
        for from in [LoginStep.chooseEnrollment, .enrollFactor] {
            table.append((.enrollmentStarted, from, .step(.enrollFactor)))
        }
        for from in [LoginStep.password, .phoneCode, .secondFactor, .enrollFactor] {
            table.append((.signedIn, from, .completed))
        }
        for from in steps { table.append((.restarted, from, .step(.password))) }
        return table
    }()

    /// The forms each step accepts, and what they go to; every other form at that step is refused.
    static let actions: [LoginStep: [OAuthLogin.Route: Machine.Action]] = [
        .password: [.password: .checkPassword, .phone: .chooseMethod, .sendPasswordReset: .sendPasswordReset],
        .phoneNumber: [.phone: .chooseMethod, .sendPhoneCode: .sendPhoneCode, .sendPasswordReset: .sendPasswordReset],
        .phoneCode: [
            .code: .verifyPhoneCode, .resend: .resendPhoneCode, .phone: .chooseMethod,
            .sendPasswordReset: .sendPasswordReset,
        ],
        .chooseFactor: [.factor: .chooseFactor, .sendPasswordReset: .sendPasswordReset],
        .secondFactor: [
            .factor: .chooseFactor, .code: .verifySecondFactor, .resend: .resendSignInCode,
            .sendPasswordReset: .sendPasswordReset,
        ],
        .chooseEnrollment: [.enroll: .startEnrollment, .sendPasswordReset: .sendPasswordReset],
        .enrollFactor: [
            .code: .verifyEnrollment, .resend: .resendEnrollment, .sendPasswordReset: .sendPasswordReset,
        ],
    ]

    @Test func aNewFlowStandsAtThePasswordStep() {
        let machine = Machine()
        #expect(machine.step == .password)
        #expect(!machine.isCompleted)
    }

    @Test(arguments: steps)
    func eachStepAcceptsItsFormsAndRefusesTheOthers(step: LoginStep) {
        let machine = Machine(step: step)
        for route in OAuthLogin.Route.allCases {
            #expect(
                machine.action(for: route) == Self.actions[step]?[route] ?? .showCurrentPage,
                "\(route) at \(step)")
        }
    }

    @Test func aCodeAtThePasswordStepIsRefused() {
        #expect(Machine().action(for: .code) == .showCurrentPage)
        #expect(Machine().action(for: .enroll) == .showCurrentPage)
        #expect(Machine(step: .phoneNumber).action(for: .code) == .showCurrentPage)
        #expect(Machine(step: .chooseFactor).action(for: .code) == .showCurrentPage)
    }

    @Test(arguments: steps)
    func everyEventLeadsWhereTheTableSaysOrIsRefused(step: LoginStep) {
        for event in Self.events {
            var machine = Machine(step: step)
            let expected = Self.transitions.first { $0.0 == event && $0.1 == step }?.2
            do {
                try machine.apply(event)
                #expect(expected != nil, "\(event) at \(step) should be refused")
                #expect((machine.isCompleted ? .completed : .step(machine.step)) == expected, "\(event) at \(step)")
            } catch {
                #expect(expected == nil, "\(event) at \(step) should lead to \(String(describing: expected))")
                #expect(error == LoginFlowRefusal(event: event, step: step, isCompleted: false))
                #expect(machine == Machine(step: step), "a refused event changes nothing")
            }
        }
    }

    @Test(arguments: steps)
    func nothingIsAcceptedAfterCompletion(step: LoginStep) {
        for route in OAuthLogin.Route.allCases {
            #expect(Machine(step: step, isCompleted: true).action(for: route) == .showCurrentPage)
        }
        for event in Self.events {
            var machine = Machine(step: step, isCompleted: true)
            #expect(throws: LoginFlowRefusal(event: event, step: step, isCompleted: true)) { try machine.apply(event) }
            #expect(machine == Machine(step: step, isCompleted: true))
        }
    }

    @Test func signingInCompletesTheFlowAndRefusesAnEnrolmentAfter() throws {
        var machine = Machine(step: .enrollFactor)
        try machine.apply(.signedIn)
        #expect(machine.isCompleted)
        #expect(machine.step == .enrollFactor, "a completed flow keeps its last step")
        #expect(machine.action(for: .enroll) == .showCurrentPage)
        #expect(machine.action(for: .code) == .showCurrentPage)
        #expect(throws: LoginFlowRefusal.self) { try machine.apply(.enrollmentStarted) }
        #expect(throws: LoginFlowRefusal.self) { try machine.apply(.restarted) }
    }

    @Test func walksThroughPhoneSignInAMandatoryEnrolmentAndItsBackupFactor() throws {
        var machine = Machine()
        try machine.apply(.phoneSignInChosen)
        try machine.apply(.phoneCodeSent)
        try machine.apply(.phoneCodeSent)
        #expect(machine.action(for: .code) == .verifyPhoneCode)
        try machine.apply(.enrollmentDemanded)
        #expect(machine.step == .chooseEnrollment)
        try machine.apply(.enrollmentStarted)
        try machine.apply(.enrollmentStarted)
        #expect(machine.action(for: .code) == .verifyEnrollment)
        try machine.apply(.signedIn)
        #expect(machine.isCompleted)
    }

    @Test func theRefusalNamesEventAndStep() {
        let refusal = LoginFlowRefusal(event: .factorChosen, step: .password, isCompleted: false)
        #expect(refusal.description == "login flow event factorChosen refused at step password")
    }

    // MARK: What the flow's transitions keep

    static func flow(step: LoginStep = .password) -> LoginFlow {
        let request = AuthorizationRequest(
            clientID: "client", tenantID: nil, redirectURI: "http://127.0.0.1/callback", state: nil,
            codeChallenge: "challenge", scope: "openid", nonce: nil, loginHint: nil)
        return LoginFlow(
            hash: [1], browserHash: [2], request: request, step: step, userID: nil, credential: nil, factors: [],
            enrollmentID: nil, factor: nil, challenge: nil, smsSentAt: nil, browserSessionHash: nil,
            expiresAt: Date(timeIntervalSince1970: 600), completedAt: nil)
    }

    static func enrollment(_ id: String, factor: String) -> MFAEnrollment {
        MFAEnrollment(
            mfaEnrollmentId: id, displayName: nil, enrolledAt: "2026-01-01T00:00:00Z", factorInfo: [:],
            factorID: factor)
    }

    @Test func oneSecondFactorIsChosenAtOnceSeveralAreOffered() throws {
        var one = Self.flow()
        try one.demandSecondFactor(userID: "u", credential: "pending", factors: [Self.enrollment("a", factor: "totp")])
        #expect(one.step == .secondFactor)
        #expect(one.userID == "u")
        #expect(one.credential == "pending")
        #expect(one.enrollmentID == "a")
        #expect(one.factor == "totp")

        var several = Self.flow(step: .phoneCode)
        several.challenge = LoginChallenge(sessionInfo: "phone session")
        try several.demandSecondFactor(
            userID: "u", credential: "pending",
            factors: [Self.enrollment("a", factor: "totp"), Self.enrollment("b", factor: "phone")])
        #expect(several.step == .chooseFactor)
        #expect(several.factors.count == 2)
        #expect(several.enrollmentID == nil)
        #expect(several.challenge == nil, "the phone sign-in's challenge is forgotten")

        try several.chooseFactor(Self.enrollment("b", factor: "phone"))
        #expect(several.step == .secondFactor)
        #expect(several.enrollmentID == "b")
        #expect(several.factor == "phone")
        try several.chooseAnotherFactor()
        #expect(several.step == .chooseFactor)
        #expect(several.enrollmentID == nil)
        #expect(several.factor == nil)
    }

    @Test func anEnrolmentKeepsTheEarlierCodeTimeUnlessItSendsOne() throws {
        var flow = Self.flow()
        try flow.demandEnrollment(userID: "u", idToken: "enrolment token")
        #expect(flow.step == .chooseEnrollment)
        #expect(flow.credential == "enrolment token")
        let sent = Date(timeIntervalSince1970: 100)
        try flow.startEnrollment(
            factorID: "phone", challenge: LoginChallenge(sessionInfo: "s1", fields: ["phoneNumber": "+1"]), sentAt: sent
        )
        try flow.startEnrollment(factorID: "recovery", challenge: LoginChallenge(sessionInfo: "s2"), sentAt: nil)
        #expect(flow.step == .enrollFactor)
        #expect(flow.factor == "recovery")
        #expect(flow.challenge == LoginChallenge(sessionInfo: "s2"))
        #expect(flow.smsSentAt == sent)
    }

    @Test func aRestartForgetsWhatTheFirstFactorGave() throws {
        var flow = Self.flow()
        flow.browserSessionHash = [3]
        try flow.demandSecondFactor(
            userID: "u", credential: "pending", factors: [Self.enrollment("a", factor: "phone")])
        flow.smsSentAt = Date(timeIntervalSince1970: 1)
        try flow.restart()
        #expect(flow.step == .password)
        #expect(flow.userID == nil)
        #expect(flow.credential == nil)
        #expect(flow.factors.isEmpty)
        #expect(flow.enrollmentID == nil && flow.factor == nil && flow.challenge == nil && flow.smsSentAt == nil)
        #expect(flow.browserSessionHash == nil)
    }

    @Test func aRefusedTransitionChangesNothingTheFlowHolds() throws {
        var flow = Self.flow(step: .secondFactor)
        try flow.chooseFactor(Self.enrollment("a", factor: "totp"))
        #expect(throws: LoginFlowRefusal(event: .enrollmentStarted, step: .secondFactor, isCompleted: false)) {
            try flow.startEnrollment(factorID: "phone", challenge: LoginChallenge(sessionInfo: "s"), sentAt: nil)
        }
        #expect(flow.step == .secondFactor)
        #expect(flow.factor == "totp")
        #expect(flow.challenge == nil)
        #expect(throws: LoginFlowRefusal.self) { try flow.demandEnrollment(userID: "v", idToken: "t") }
        #expect(flow.userID == nil)
        try flow.complete()
        #expect(throws: LoginFlowRefusal.self) { try flow.restart() }
        #expect(flow.factor == "totp")
    }

    @Test func aStoredFlowIsCompletedWhenItsRowSaysSo() {
        let open = Self.flow(step: .secondFactor)
        #expect(!open.machine.isCompleted)
        #expect(open.machine.action(for: .code) == .verifySecondFactor)
        let completed = LoginFlow(
            hash: [1], browserHash: [2], request: open.request, step: .secondFactor, userID: nil, credential: nil,
            factors: [], enrollmentID: nil, factor: nil, challenge: nil, smsSentAt: nil, browserSessionHash: nil,
            expiresAt: open.expiresAt, completedAt: Date(timeIntervalSince1970: 1))
        #expect(completed.machine == LoginFlowStateMachine(step: .secondFactor, isCompleted: true))
        #expect(completed.machine.action(for: .code) == .showCurrentPage)
    }
}
