import Synchronization
import TesseraCore
import TesseraJSON
import TesseraMetrics
import TesseraServer
import Testing

/// A sender that records what it is given and fails while told to.
final class FakeSender: SMSSender, EmailSender {
    private let failing = Atomic(false)
    private let sent = Atomic(0)

    /// Whether the next sends fail with `DELIVERY_FAILED`.
    func fail(_ shouldFail: Bool) { failing.store(shouldFail, ordering: .sequentiallyConsistent) }
    /// How many messages it was given.
    var calls: Int { sent.load(ordering: .sequentiallyConsistent) }

    func send(_ message: SMSMessage) async throws { try attempt() }
    func send(_ message: EmailMessage) async throws { try attempt() }

    private func attempt() throws {
        sent.add(1, ordering: .sequentiallyConsistent)
        if failing.load(ordering: .sequentiallyConsistent) {
            throw AuthError(.deliveryFailed, "fake failure")
        }
    }
}

@Suite struct DeliveryMetricsTests {
    static func sms(_ kind: SMSKind) -> SMSMessage {
        SMSMessage(to: "+15555550100", body: "123456 is your code.", kind: kind, tenantId: nil, languageCode: "en")
    }

    /// An e-mail of `kind`, decoded from its webhook JSON (the type has no public memberwise initializer).
    static func email(kind: String = "verify_email") throws -> EmailMessage {
        let json = """
            {"to": "a@example.com", "subject": "Verify", "text": "Open the link.", "kind": "\(kind)",
             "link": "https://example.com/verify-email?oobCode=x"}
            """
        return try JSONValueDecoder().decode(EmailMessage.self, from: JSONParser().parse(Array(json.utf8)))
    }

    /// The error `work` threw, as an `AuthError`.
    private func thrown(_ work: () async throws -> Void) async -> AuthError? {
        do {
            try await work()
            return nil
        } catch {
            return error as? AuthError
        }
    }

    @Test func smsDeliveriesAreCountedByKindAndOutcome() async throws {
        let registry = MetricsRegistry()
        let fake = FakeSender()
        let sender = CountingSMSSender(wrapping: fake, registry: registry)
        try await sender.send(Self.sms(.phoneSignIn))
        try await sender.send(Self.sms(.phoneSignIn))
        try await sender.send(Self.sms(.mfaSignIn))
        fake.fail(true)
        let error = await thrown { try await sender.send(Self.sms(.mfaEnrollment)) }
        #expect(error == AuthError(.deliveryFailed, "fake failure"))
        fake.fail(false)
        try await sender.send(Self.sms(.mfaEnrollment))
        #expect(fake.calls == 5)
        let text = registry.render()
        #expect(text.contains("# TYPE tessera_sms_deliveries_total counter\n"))
        #expect(text.contains("tessera_sms_deliveries_total{kind=\"phone_sign_in\",outcome=\"delivered\"} 2\n"))
        #expect(text.contains("tessera_sms_deliveries_total{kind=\"phone_sign_in\",outcome=\"failed\"} 0\n"))
        #expect(text.contains("tessera_sms_deliveries_total{kind=\"mfa_sign_in\",outcome=\"delivered\"} 1\n"))
        #expect(text.contains("tessera_sms_deliveries_total{kind=\"mfa_enrollment\",outcome=\"failed\"} 1\n"))
        #expect(text.contains("tessera_sms_deliveries_total{kind=\"mfa_enrollment\",outcome=\"delivered\"} 1\n"))
    }

    @Test func everySMSSeriesIsRenderedBeforeTheFirstDelivery() {
        let registry = MetricsRegistry()
        _ = CountingSMSSender(wrapping: FakeSender(), registry: registry)
        let text = registry.render()
        for kind in SMSKind.allCases {
            for outcome in ["delivered", "failed"] {
                let line = "tessera_sms_deliveries_total{kind=\"\(kind.rawValue)\",outcome=\"\(outcome)\"} 0\n"
                #expect(text.contains(line))
            }
        }
    }

    @Test func emailDeliveriesAreCountedByKindAndOutcome() async throws {
        let registry = MetricsRegistry()
        let fake = FakeSender()
        let sender = CountingEmailSender(wrapping: fake, registry: registry)
        var text = registry.render()
        #expect(text.contains("tessera_email_deliveries_total{kind=\"verify_email\",outcome=\"delivered\"} 0\n"))
        #expect(text.contains("tessera_email_deliveries_total{kind=\"verify_email\",outcome=\"failed\"} 0\n"))
        let email = try Self.email()
        try await sender.send(email)
        fake.fail(true)
        #expect(await thrown { try await sender.send(email) }?.reason == .deliveryFailed)
        let other = try Self.email(kind: "password_reset")
        #expect(await thrown { try await sender.send(other) }?.reason == .deliveryFailed)
        text = registry.render()
        #expect(text.contains("tessera_email_deliveries_total{kind=\"verify_email\",outcome=\"delivered\"} 1\n"))
        #expect(text.contains("tessera_email_deliveries_total{kind=\"verify_email\",outcome=\"failed\"} 1\n"))
        #expect(text.contains("tessera_email_deliveries_total{kind=\"password_reset\",outcome=\"failed\"} 1\n"))
        #expect(fake.calls == 3)
    }

    @Test func anErrorOtherThanDeliveryFailedIsPassedOnUnchanged() async {
        struct Unexpected: Error {}
        struct Throwing: SMSSender {
            func send(_ message: SMSMessage) async throws { throw Unexpected() }
        }
        let registry = MetricsRegistry()
        let sender = CountingSMSSender(wrapping: Throwing(), registry: registry)
        await #expect(throws: Unexpected.self) { try await sender.send(Self.sms(.mfaSignIn)) }
        #expect(registry.render().contains("tessera_sms_deliveries_total{kind=\"mfa_sign_in\",outcome=\"failed\"} 1\n"))
    }
}
