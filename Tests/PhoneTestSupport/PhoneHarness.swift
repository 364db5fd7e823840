import FactorServices
import FoundationEssentials
import Logging
public import MultiFactor
public import PhoneCodes
import PhoneFactor
public import PhoneSignIn
import Synchronization
public import TesseraCore
import TesseraCrypto
import TesseraHTTP
public import TesseraJSON
import TesseraLoop
public import TesseraPostgres
public import TesseraTestSupport
import Testing

/// A router with the phone factor and phone sign-in over the test database, a recording SMS sender, and the steps
/// tests repeat. Every test works in tenants of its own, with numbers and client addresses of its own, because the
/// database (and the send limits in it) is shared. The SMS factor's, phone sign-in's and the send rules' tests share
/// it, since phone sign-in refuses the numbers of multi-factor users and both send through one `SMSCodeIssuer`.
public struct PhoneHarness: Sendable {
    /// The database, clock and core services.
    public let core: CoreHarness
    /// Every SMS sent.
    public let sms: RecordingSMSSender
    /// A router offering the SMS factor only (in-process, or as a factor service).
    public let router: MultiFactorRouter
    /// The password first factor over ``router``.
    public var firstFactor: FirstFactorSignIn { FirstFactorSignIn(router: router) }
    /// Phone sign-in over `router`.
    public let phoneSignIn: PhoneSignIn

    /// The password of the harness's password users.
    public static let password = "correct horse battery"
    /// What the harness migrates: the core, the router and module `phone`.
    public static let migrations = CoreMigrations.all + MultiFactorMigrations.all + PhoneMigrations.all
    /// A well-formed app credential.
    public static let app: JSONObject = ["recaptchaToken": "token"]

    /// Runs `body` with a fresh harness whose apps are verified by `appVerification`. With `remote`, the SMS
    /// factor runs as a factor service (`tessera factor serve phone`): the same plugin behind a ``FactorHost`` on a
    /// loopback port, which the router calls over the factor protocol.
    public static func run<T>(
        appVerification: AppVerificationPolicy = .enforced(AcceptingAppVerifier()), remote: Bool = false,
        _ body: (PhoneHarness) async throws -> T
    ) async throws -> T {
        try await CoreHarness.run(migrations: migrations) { core in
            let sms = RecordingSMSSender()
            let codes = SMSCodeIssuer(sender: sms, appVerification: appVerification)
            guard remote else {
                return try await body(
                    PhoneHarness(core: core, sms: sms, codes: codes, factor: PhoneFactor(codes: codes)))
            }
            let group = try EventLoopGroup(loopCount: 1)
            defer { group.shutdown() }
            let quiet = Logger(label: "phone-service") { _ in SwiftLogNoOpLogHandler() }
            let secret = try SecureRandom.bytes(count: 32)
            let host = try FactorHost(
                factor: PhoneFactor(codes: codes), secret: secret, database: PostgresClientRunner(core.database))
            var routes = HTTPRouter()
            routes.on(.post, "/rpc", handler: { request in await host.respond(to: request) })
            let server = HTTPServer(
                name: "phone-service", loops: group.loops, host: "127.0.0.1", port: 0, router: routes, logger: quiet)
            try await server.start()
            let client = FactorServiceClient(
                factorID: "phone",
                endpoints: try FactorServiceEndpoints(
                    ["http://127.0.0.1:\(server.port)/rpc"], allowInsecureHttp: false),
                secret: secret, timeout: .seconds(5),
                http: try HTTPClient(
                    group: group,
                    configuration: HTTPClientConfiguration(maxResponseBodyBytes: FactorServiceClient.maxResponseBytes)),
                health: FactorServiceHealth(), logger: quiet)
            let factor = RemoteFactor(described: try FactorServiceDescriptor(json: host.description), client: client)
            do {
                let value = try await body(PhoneHarness(core: core, sms: sms, codes: codes, factor: factor))
                await server.shutdown(gracePeriod: .zero)
                return value
            } catch {
                await server.shutdown(gracePeriod: .zero)
                throw error
            }
        }
    }

    private init(core: CoreHarness, sms: RecordingSMSSender, codes: SMSCodeIssuer, factor: any Factor) {
        self.core = core
        self.sms = sms
        router = MultiFactorRouter(
            services: core.services, registry: FactorRegistry([factor]), logger: Logger(label: "phone-test"))
        phoneSignIn = PhoneSignIn(services: core.services, router: router, codes: codes)
    }

    /// The harness's clock.
    public var clock: ManualWallClock { core.clock }

    /// A new tenant configured by `json` (its `displayName` is "Phone Test" unless given).
    public func tenant(_ json: JSONObject = [:]) async throws -> String {
        let id = "phone-\(UInt32.random(in: 0 ... .max))"
        var config: JSONObject = ["displayName": "Phone Test"]
        for (key, value) in json { config[key] = value }
        let text = JSONValue.object(try Tenant(json: config, tenantId: id).json).description
        try await core.sql(
            "INSERT INTO tenants (tenant_id, config, created_at, updated_at) VALUES ($1, $2::text::jsonb, now(), now())",
            [id, text])
        return id
    }

    /// MFA enabled with the SMS factor.
    public static let smsMFA: JSONValue = ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]]

    /// A fresh US number (+1 555 01xx-style fictional range, randomized so tests do not share limits).
    public static func number() -> String {
        "+1555\(String(UInt32.random(in: 1_000_000...9_999_999)))"
    }

    /// A fresh client address in 10/8.
    public static func client() -> String {
        "10.\(UInt8.random(in: 0...255)).\(UInt8.random(in: 0...255)).\(UInt8.random(in: 1...254))"
    }

    /// `accounts.sendVerificationCode` with a valid app credential unless told otherwise.
    public func send(
        _ number: String, tenantID: String?, app: JSONObject? = Self.app, languageCode: String? = nil,
        client: String? = nil
    ) async throws -> String {
        try await phoneSignIn.sendVerificationCode(
            phoneNumber: number, tenantID: tenantID, appVerification: app, languageCode: languageCode,
            clientAddress: client ?? Self.client())
    }

    /// The code in the last SMS sent to `number`.
    public func lastCode(to number: String) throws -> String {
        let message = try #require(sms.sent.last { $0.to == number })
        return try #require(Self.code(in: message.body))
    }

    /// The first run of six digits in `body`.
    public static func code(in body: String) -> String? {
        let characters = Array(body)
        var index = 0
        while index + 6 <= characters.count {
            let run = characters[index..<index + 6]
            if run.allSatisfy(\.isASCIIDigit) {
                let before = index == 0 || !characters[index - 1].isASCIIDigit
                let after = index + 6 == characters.count || !characters[index + 6].isASCIIDigit
                if before && after { return String(run) }
            }
            index += 1
        }
        return nil
    }

    /// Sends a code to `number` and signs in with it.
    public func phoneSignIn(_ number: String, tenantID: String?) async throws -> TokenResult {
        let session = try await send(number, tenantID: tenantID)
        return try await phoneSignIn.signIn(
            sessionInfo: session, code: try lastCode(to: number), tenantID: tenantID)
    }

    /// A password user of `tenantID` with a verified address, and the tokens of a fresh sign-in.
    public func verifiedUser(tenantID: String?) async throws -> (email: String, tokens: TokenResult) {
        let email = CoreHarness.email("phone")
        let signedUp = try await firstFactor.signUp(
            email: email, password: Self.password, displayName: nil, tenantID: tenantID)
        try await core.sql("UPDATE users SET email_verified = true WHERE user_id = $1", [signedUp.localId])
        guard
            case .tokens(let tokens) = try await firstFactor.signInWithPassword(
                email: email, password: Self.password, tenantID: tenantID)
        else { throw Unexpected(description: "expected tokens") }
        return (email, tokens)
    }

    /// Starts an SMS enrolment of `number`; returns its sessionInfo.
    public func startEnrollment(
        _ idToken: String, number: String, tenantID: String?, app: JSONObject? = Self.app,
        languageCode: String? = nil
    ) async throws -> String {
        var info: JSONObject = ["phoneNumber": .string(number)]
        if let app { info["appVerification"] = .object(app) }
        var request = EnrollmentStartRequest(
            idToken: idToken, tenantID: tenantID, languageCode: languageCode, factor: "phone", info: info)
        request.clientAddress = Self.client()
        let started = try await router.startEnrollment(request)
        return try #require(started.result["phoneSessionInfo"]?.objectValue?["sessionInfo"]?.stringValue)
    }

    /// Finishes an SMS enrolment.
    public func finalizeEnrollment(
        _ idToken: String, sessionInfo: String, code: String, tenantID: String?
    ) async throws -> TokenResult {
        try await router.finalizeEnrollment(
            EnrollmentFinalizeRequest(
                idToken: idToken, tenantID: tenantID, displayName: "work phone", factor: "phone",
                info: ["sessionInfo": .string(sessionInfo), "code": .string(code)]))
    }

    /// Enrols `number` for the user of `idToken`; returns the enrolment id.
    public func enroll(_ idToken: String, number: String, tenantID: String?) async throws -> String {
        let session = try await startEnrollment(idToken, number: number, tenantID: tenantID)
        let result = try await finalizeEnrollment(
            idToken, sessionInfo: session, code: try lastCode(to: number), tenantID: tenantID)
        return try #require(result.mfaEnrollmentId)
    }

    /// The challenge of a password sign-in that must ask for a second factor.
    public func challenge(_ email: String, tenantID: String?) async throws -> MFAChallenge {
        guard
            case .challenge(let challenge) = try await firstFactor.signInWithPassword(
                email: email, password: Self.password, tenantID: tenantID)
        else { throw Unexpected(description: "expected an MFA challenge") }
        return challenge
    }

    /// `mfaSignIn.start` for a phone enrolment; returns the sessionInfo.
    public func startSignIn(
        _ credential: String, enrollmentID: String, tenantID: String?, app: JSONObject? = Self.app
    ) async throws -> String {
        var request = SignInStartRequest(
            pendingCredential: credential, enrollmentID: enrollmentID, tenantID: tenantID, languageCode: nil,
            info: app.map { (factor: "phone", value: ["appVerification": .object($0)]) })
        request.clientAddress = Self.client()
        let started = try await router.startSignIn(request)
        return try #require(started["phoneResponseInfo"]?.objectValue?["sessionInfo"]?.stringValue)
    }

    /// `mfaSignIn.finalize` with an SMS code; the enrolment named by id or by `info`'s `phoneNumber`.
    public func finishSignIn(
        _ credential: String, enrollmentID: String?, info: JSONObject, tenantID: String?
    ) async throws -> TokenResult {
        try await router.finalizeSignIn(
            SignInFinalizeRequest(
                pendingCredential: credential, enrollmentID: enrollmentID, tenantID: tenantID, factor: "phone",
                info: info))
    }

    /// The claims of an ID token of `tenantID`.
    public func claims(_ idToken: String, tenantID: String?) async throws -> IDTokenClaims {
        let tokens = core.services.tokens
        return try await core.database.withPool { pool in
            try await tokens.verify(pool, idToken: idToken, tenantID: tenantID, acceptingEnrollmentRequired: true).0
        }
    }
}

/// Keeps every SMS; fails with `DELIVERY_FAILED` while told to.
public final class RecordingSMSSender: SMSSender {
    private let state = Mutex<(messages: [SMSMessage], failing: Bool)>(([], false))

    /// Records `message`, or fails.
    public func send(_ message: SMSMessage) async throws {
        let failing = state.withLock { state in
            if !state.failing { state.messages.append(message) }
            return state.failing
        }
        if failing { throw AuthError(.deliveryFailed, "the test gateway is down") }
    }

    /// Makes later sends fail (or succeed again).
    public func setFailing(_ failing: Bool) {
        state.withLock { $0.failing = failing }
    }

    /// The messages sent so far.
    public var sent: [SMSMessage] { state.withLock { $0.messages } }

    /// The messages sent to `number`.
    public func sent(to number: String) -> [SMSMessage] { sent.filter { $0.to == number } }
}

/// An outcome the test did not expect.
public struct Unexpected: Error, CustomStringConvertible {
    /// What happened instead.
    public let description: String

    /// An outcome described by `description`.
    public init(description: String) {
        self.description = description
    }
}

extension Character {
    /// Whether this is one of `0`–`9`.
    public var isASCIIDigit: Bool { isASCII && isNumber }
}
