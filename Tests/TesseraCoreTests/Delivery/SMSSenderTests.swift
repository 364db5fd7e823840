import Logging
import TesseraCore
import TesseraHTTP
import TesseraJSON
import TesseraLoop
import TesseraTestSupport
import Testing

/// The SMS senders against a real webhook receiver on loopback, and what they log.
@Suite struct SMSSenderTests {
    static let message = SMSMessage(
        to: "+15555550100", body: "123456 is your verification code for Acme.", kind: .mfaSignIn,
        tenantId: "tenant-1", languageCode: "en")
    /// A short policy so the suite stays fast.
    static let quickPolicy = WebhookRetryPolicy(
        attempts: 3, timeout: .milliseconds(500), initialBackoff: .milliseconds(10))

    /// A webhook sender on the receiver's group, logging into a capture.
    private func sender(
        url: String, group: EventLoopGroup, policy: WebhookRetryPolicy = quickPolicy
    ) throws -> (WebhookSMSSender, CapturingLogHandler.Store) {
        let (logger, store) = CapturingLogHandler.logger()
        let webhook = WebhookClient(client: try HTTPClient(group: group), policy: policy)
        return (WebhookSMSSender(webhook: webhook, url: url, logger: logger), store)
    }

    /// The reason of the `AuthError` that `work` threw, or nil when it threw nothing or something else.
    private func reason(_ work: () async throws -> Void) async -> AuthError? {
        do {
            try await work()
            return nil
        } catch {
            return error as? AuthError
        }
    }

    @Test func theWebhookReceivesTheMessageAsJSON() async throws {
        let receiver = try await WebhookReceiver.start(statuses: [200])
        let (sender, log) = try sender(url: receiver.url, group: receiver.group)
        try await sender.send(Self.message)
        let request = try #require(receiver.received.all.first)
        #expect(receiver.received.all.count == 1)
        #expect(request.contentType == "application/json")
        let json = try JSONParser().parse(request.body)
        #expect(try JSONValueDecoder().decode(SMSMessage.self, from: json) == Self.message)
        let object = try #require(json.objectValue)
        #expect(Set(object.keys) == ["to", "body", "kind", "tenantId", "languageCode"])
        #expect(object["kind"] == "mfa_sign_in")
        #expect(log.all.isEmpty)
        await receiver.stop()
    }

    @Test func aProjectLevelMessageHasNoTenantId() async throws {
        let receiver = try await WebhookReceiver.start(statuses: [204])
        let (sender, _) = try sender(url: receiver.url, group: receiver.group)
        var message = Self.message
        message.tenantId = nil
        message.kind = .phoneSignIn
        try await sender.send(message)
        let request = try #require(receiver.received.all.first)
        let json = try JSONParser().parse(request.body)
        #expect(json.objectValue.map { Set($0.keys) } == ["to", "body", "kind", "languageCode"])
        #expect(try JSONValueDecoder().decode(SMSMessage.self, from: json) == message)
        await receiver.stop()
    }

    @Test func aReceiverThatFailsTwiceThenSucceedsGetsTheMessage() async throws {
        let receiver = try await WebhookReceiver.start(statuses: [500, 503, 200])
        let (sender, log) = try sender(url: receiver.url, group: receiver.group)
        try await sender.send(Self.message)
        #expect(receiver.received.all.count == 3)
        let bodies = Set(receiver.received.all.map(\.body))
        #expect(bodies.count == 1)
        #expect(log.all.isEmpty)
        await receiver.stop()
    }

    @Test func aReceiverThatAlwaysFailsIsDeliveryFailedAfterEveryAttempt() async throws {
        let receiver = try await WebhookReceiver.start(statuses: [500])
        let (sender, log) = try sender(url: receiver.url, group: receiver.group)
        let error = await reason { try await sender.send(Self.message) }
        #expect(error == AuthError(.deliveryFailed, "The SMS could not be delivered; try again later."))
        #expect(error?.reason.status == "UNAVAILABLE")
        #expect(receiver.received.all.count == 3)
        let record = try #require(log.all.first)
        #expect(log.all.count == 1)
        #expect(record.level == .error)
        #expect(record.metadata["kind"] == "mfa_sign_in")
        #expect(record.metadata["attempts"] == "3")
        #expect(record.metadata["error"] == "HTTP status 500")
        #expect(record.metadata["to"] == "+*******0100")
        #expect(record.metadata["tenant-id"] == "tenant-1")
        #expect(!record.fullText.contains("123456"))
        #expect(!record.fullText.contains("5555550100"))
        await receiver.stop()
    }

    @Test func aReceiverThatRefusesTheMessageIsNotRetried() async throws {
        let receiver = try await WebhookReceiver.start(statuses: [400, 200])
        let (sender, log) = try sender(url: receiver.url, group: receiver.group)
        let error = await reason { try await sender.send(Self.message) }
        #expect(error?.reason == .deliveryFailed)
        #expect(receiver.received.all.count == 1)
        #expect(log.all.first?.metadata["attempts"] == "1")
        await receiver.stop()
    }

    @Test func aReceiverThatNeverAnswersIsDeliveryFailedAfterTheConfiguredAttempts() async throws {
        let receiver = try await SilentReceiver.start()
        let policy = WebhookRetryPolicy(attempts: 2, timeout: .milliseconds(100), initialBackoff: .milliseconds(10))
        let (sender, log) = try sender(url: receiver.url, group: receiver.group, policy: policy)
        let started = ContinuousClock.now
        let error = await reason { try await sender.send(Self.message) }
        #expect(error?.reason == .deliveryFailed)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(receiver.accepted.total == 2)
        let record = try #require(log.all.first)
        #expect(record.metadata["attempts"] == "2")
        #expect(record.metadata["error"] == "no complete response within 0.1 seconds")
        #expect(!record.fullText.contains("123456"))
        await receiver.stop()
    }

    @Test func anUnreachableReceiverIsDeliveryFailed() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let (sender, log) = try sender(url: "http://127.0.0.1:1/sms", group: group)
        let error = await reason { try await sender.send(Self.message) }
        #expect(error?.reason == .deliveryFailed)
        #expect(log.all.first?.metadata["attempts"] == "3")
        #expect(log.all.first?.metadata["error"]?.hasPrefix("connection refused") == true)
        group.shutdown()
    }

    @Test func inProductionTheLogSenderNeverLogsTheBodyOrTheFullNumber() async throws {
        let (logger, log) = CapturingLogHandler.logger()
        let sender = LogSMSSender(logger: logger, revealsCodes: false)
        try await sender.send(Self.message)
        let record = try #require(log.all.first)
        #expect(log.all.count == 1)
        #expect(record.level == .warning)
        #expect(record.message == "SMS not delivered: no --sms-webhook-url is configured")
        #expect(record.metadata == ["to": "+*******0100", "kind": "mfa_sign_in"])
        #expect(!record.fullText.contains("123456"))
        #expect(!record.fullText.contains("5555550100"))
        #expect(!record.fullText.contains("verification code"))
    }

    @Test func inDevelopmentTheLogSenderShowsTheNumberAndTheBody() async throws {
        let (logger, log) = CapturingLogHandler.logger()
        let sender = LogSMSSender(logger: logger, revealsCodes: true)
        try await sender.send(Self.message)
        let record = try #require(log.all.first)
        #expect(log.all.count == 1)
        #expect(record.level == .notice)
        #expect(record.metadata["to"] == "+15555550100")
        #expect(record.metadata["kind"] == "mfa_sign_in")
        #expect(record.metadata["language"] == "en")
        #expect(record.metadata["body"] == "123456 is your verification code for Acme.")
    }
}
