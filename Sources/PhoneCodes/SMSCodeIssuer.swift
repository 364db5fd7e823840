public import FoundationEssentials
public import TesseraCore
import TesseraHTTP

/// Sends the SMS codes of the three methods that send one (`accounts.sendVerificationCode` of phone sign-in, and
/// the SMS factor's `mfaEnrollment.start` and `mfaSignIn.start`), applying API §4 in this order:
/// 1. app verification (``AppVerificationPolicy``; the server's own login pages vouch for themselves);
/// 2. test numbers: no SMS, no region check, no send limit; the configured code is the only valid one;
/// 3. the region policy (`smsRegionConfig`: `INVALID_PHONE_NUMBER` "region not allowed");
/// 4. the send limits (``SMSSendLimits``);
/// 5. a fresh 6-digit code, in the message template of the client's language, through the ``SMSSender``.
///
/// It returns the digest of the code for the caller to store with its session; when delivery fails it throws
/// `DELIVERY_FAILED` before anything is stored, so the code is void. The send still counts against the limits: a
/// gateway that timed out may have delivered it.
public struct SMSCodeIssuer: Sendable {
    /// Where messages go.
    public let sender: any SMSSender
    /// How apps are verified.
    public let appVerification: AppVerificationPolicy
    /// The send limits.
    public let limits: SMSSendLimits

    /// An issuer sending through `sender`.
    public init(sender: any SMSSender, appVerification: AppVerificationPolicy, limits: SMSSendLimits = SMSSendLimits())
    {
        self.sender = sender
        self.appVerification = appVerification
        self.limits = limits
    }

    /// One code to send: where, why, and under which configuration and client.
    public struct Request: Sendable {
        /// The E.164 number (already checked for form).
        public var phoneNumber: String
        /// Why it is sent.
        public var kind: SMSKind
        /// The handle the code will be checked under.
        public var sessionInfo: String
        /// The `appVerification` param, read.
        public var credential: AppCredential?
        /// The configuration in force.
        public var config: EffectiveConfig
        /// The client's `languageCode`.
        public var languageCode: String?
        /// The client's IP address, when known.
        public var clientAddress: String?
        /// Whether the server's own login page sends it (the multi-factor router's `appVerifiedByServer`).
        public var appVerifiedByServer: Bool
        /// The time of the call.
        public var now: Date

        /// A code for `phoneNumber`, sent for `kind` under `sessionInfo` at `now`.
        public init(
            phoneNumber: String, kind: SMSKind, sessionInfo: String, credential: AppCredential?,
            config: EffectiveConfig, languageCode: String?, clientAddress: String?, appVerifiedByServer: Bool = false,
            now: Date
        ) {
            self.phoneNumber = phoneNumber
            self.kind = kind
            self.sessionInfo = sessionInfo
            self.credential = credential
            self.config = config
            self.languageCode = languageCode
            self.clientAddress = clientAddress
            self.appVerifiedByServer = appVerifiedByServer
            self.now = now
        }
    }

    /// Checks, counts and sends one code; returns its digest under the request's `sessionInfo`.
    public func issue(_ db: some SQLRunner, _ request: Request) async throws -> [UInt8] {
        let testCode = request.config.testPhoneNumbers[request.phoneNumber]
        try await appVerification.check(
            request.credential, phoneNumber: request.phoneNumber, isTestNumber: testCode != nil,
            verifiedByServer: request.appVerifiedByServer)
        if let testCode { return try PhoneCode.digest(testCode, sessionInfo: request.sessionInfo) }
        try PhoneRegions.check(request.phoneNumber, against: request.config.smsRegionConfig)
        try await limits.reserve(
            db, tenantID: request.config.tenantId, phoneNumber: request.phoneNumber,
            clientKey: request.clientAddress.flatMap(IPAddress.init(parsing:))?.rateLimitKey,
            quota: request.config.smsDailyQuota, now: request.now)
        let code = try PhoneCode.make()
        let message = SMSTemplates.shared.render(
            kind: request.kind, code: code, appName: request.config.issuerName, languageCode: request.languageCode)
        try await sender.send(
            SMSMessage(
                to: request.phoneNumber, body: message.body, kind: request.kind, tenantId: request.config.tenantId,
                languageCode: message.languageCode))
        return try PhoneCode.digest(code, sessionInfo: request.sessionInfo)
    }
}
