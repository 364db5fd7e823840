import FoundationEssentials
import Logging
import MultiFactor
import PhoneCodes
import PhoneSignIn
import Synchronization
import TOTPFactor
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraOAuth
import TesseraServer
import TesseraTestSupport
import Testing

/// The authorization endpoint and login pages over the test database, with the standard factors (SMS through a
/// recording sender), any extra factors a test registers, and the steps tests repeat. Every test works in tenants,
/// users and clients of its own.
struct LoginHarness {
    let core: CoreHarness
    let sms: LoginSMSSender
    let router: MultiFactorRouter
    /// The password first factor over ``router``.
    var firstFactor: FirstFactorSignIn { FirstFactorSignIn(router: router) }
    let login: OAuthLogin

    static let password = "correct horse battery"
    static let redirectURI = "http://127.0.0.1/callback"

    /// Runs `body` with fresh handlers whose issuer is `issuer` (https by default, as the core harness's), over the
    /// standard factors followed by `extraFactors` (which must need no migrations).
    static func run<T>(
        issuer: String = CoreHarness.issuer, appVerification: AppVerificationPolicy = .enforced(AcceptingAppVerifier()),
        extraFactors: [any Factor] = [], _ body: (LoginHarness) async throws -> T
    ) async throws -> T {
        try await CoreHarness.run(migrations: SchemaMigrations.all) { core in
            let sms = LoginSMSSender()
            let codes = SMSCodeIssuer(sender: sms, appVerification: appVerification)
            let registry = FactorRegistry(StandardFactors.factors(phoneCodes: codes) + extraFactors)
            let router = MultiFactorRouter(
                services: core.services, registry: registry, logger: Logger(label: "login-test"))
            let login = OAuthLogin(
                services: core.services, router: router, issuer: issuer, logger: Logger(label: "login-test"),
                phoneSignIn: PhoneSignIn(services: core.services, router: router, codes: codes))
            return try await body(LoginHarness(core: core, sms: sms, router: router, login: login))
        }
    }

    var clock: ManualWallClock { core.clock }

    /// A new tenant configured by `json` (display name "Login Test" unless given).
    func tenant(_ json: JSONObject = [:]) async throws -> String {
        let id = "login-\(UInt32.random(in: 0 ... .max))"
        var config: JSONObject = ["displayName": "Login Test"]
        for (key, value) in json { config[key] = value }
        try await core.sql(
            """
            INSERT INTO tenants (tenant_id, config, created_at, updated_at)
            VALUES ($1, $2::text::jsonb, now(), now())
            """,
            [id, JSONValue.object(try Tenant(json: config, tenantId: id).json).description])
        return id
    }

    /// MFA with TOTP and SMS in `state`.
    static func mfa(_ state: String = "ENABLED") -> JSONValue {
        [
            "state": .string(state), "enabledProviders": ["PHONE_SMS"],
            "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 1]]],
        ]
    }

    /// A registered public client of `tenantID` with the default grants and scopes unless told otherwise.
    func client(
        tenantID: String?, redirectURIs: [String] = [Self.redirectURI],
        grantTypes: String = "authorization_code refresh_token", scopes: String = "openid profile email offline_access",
        defaultScopes: String? = "openid"
    ) async throws -> String {
        let id = try SecureRandom.identifier()
        try await core.sql(
            """
            INSERT INTO oauth_clients (client_id, tenant_id, client_name, client_type, redirect_uris, grant_types,
                scopes, default_scopes, access_token_ttl, refresh_token_ttl, created_at, updated_at)
            VALUES ($1, $2, 'Test App', 'public', $3, $4, $5, $6, 900, 2592000, now(), now())
            """, [id, tenantID, redirectURIs.joined(separator: " "), grantTypes, scopes, defaultScopes])
        return id
    }

    /// A password user of `tenantID` with a verified address.
    func user(tenantID: String?) async throws -> (email: String, userID: String) {
        let email = CoreHarness.email("login")
        let signedUp = try await firstFactor.signUp(
            email: email, password: Self.password, displayName: nil, tenantID: tenantID)
        try await core.sql("UPDATE users SET email_verified = true WHERE user_id = $1", [signedUp.localId])
        return (email, signedUp.localId)
    }

    /// Signs `browser` in to `client` with the password of `email` through the pages; the answer to the password
    /// form (the redirect with the code, when no further factor is asked).
    @discardableResult
    static func signIn(_ browser: inout Browser, client: String, email: String) async throws -> HTTPResponse {
        let page = try await browser.authorize(AuthorizeRequestTests.valid(client, pkce: try PKCEPair()))
        return try await browser.submit(page, form: "password-form", [("email", email), ("password", password)])
    }

    /// Enrols TOTP for the user (through the router, as an app would); returns the secret. The clock then moves
    /// past the enrolment code's step, so the next code is fresh.
    func enrollTOTP(_ email: String, tenantID: String?, signedIn: TokenResult? = nil) async throws -> [UInt8] {
        var tokens = signedIn
        if tokens == nil { tokens = try await signIn(email, tenantID: tenantID) }
        let idToken = try #require(tokens?.idToken)
        let started = try await router.startEnrollment(
            EnrollmentStartRequest(
                idToken: idToken, tenantID: tenantID, languageCode: nil, factor: "totp", info: [:]))
        let info = try #require(started.result["totpSessionInfo"]?.objectValue)
        let secret = try Base32.decode(try #require(info["sharedSecretKey"]?.stringValue))
        _ = try await router.finalizeEnrollment(
            EnrollmentFinalizeRequest(
                idToken: idToken, tenantID: tenantID, displayName: "phone app", factor: "totp",
                info: [
                    "sessionInfo": .string(try #require(info["sessionInfo"]?.stringValue)),
                    "verificationCode": .string(try totp(secret)),
                ]))
        clock.advance(by: 60)
        return secret
    }

    /// Enrols a phone number for the user through the router; clears the recorded SMS.
    func enrollPhone(_ email: String, number: String, tenantID: String?, signedIn: TokenResult? = nil) async throws {
        var tokens = signedIn
        if tokens == nil { tokens = try await signIn(email, tenantID: tenantID) }
        let idToken = try #require(tokens?.idToken)
        let started = try await router.startEnrollment(
            EnrollmentStartRequest(
                idToken: idToken, tenantID: tenantID, languageCode: nil, factor: "phone",
                info: ["phoneNumber": .string(number), "appVerification": ["recaptchaToken": "token"]]))
        let sessionInfo = try #require(started.result["phoneSessionInfo"]?.objectValue?["sessionInfo"]?.stringValue)
        _ = try await router.finalizeEnrollment(
            EnrollmentFinalizeRequest(
                idToken: idToken, tenantID: tenantID, displayName: nil, factor: "phone",
                info: ["sessionInfo": .string(sessionInfo), "code": .string(try sms.lastCode(to: number))]))
    }

    /// The tokens of a password sign-in that must not be challenged.
    func signIn(_ email: String, tenantID: String?) async throws -> TokenResult {
        guard
            case .tokens(let tokens) = try await firstFactor.signInWithPassword(
                email: email, password: Self.password, tenantID: tenantID)
        else { throw Unexpected(description: "expected tokens") }
        return tokens
    }

    /// The TOTP code of `secret` now.
    func totp(_ secret: [UInt8]) throws -> String {
        try OneTimePassword(secret: secret).code(at: Int64(clock.now().timeIntervalSince1970))
    }

    /// A fresh fictional US number.
    static func number() -> String {
        "+1555\(String(UInt32.random(in: 1_000_000...9_999_999)))"
    }

    /// A browser talking to these handlers.
    func browser() -> Browser {
        Browser(login: login)
    }

    /// A browser whose requests come from `address` (`1.2.3.4:5555` form, or a bare address).
    func browser(address: String) -> Browser {
        var browser = Browser(login: login)
        browser.address = address.contains(":") ? address : address + ":5555"
        return browser
    }
}

/// A PKCE verifier and its S256 challenge.
struct PKCEPair {
    let verifier: String
    let challenge: String

    init() throws {
        verifier = try SecureRandom.token(byteCount: 32)
        challenge = try PKCE.challenge(of: verifier)
    }
}

/// An outcome the test did not expect.
struct Unexpected: Error, CustomStringConvertible {
    let description: String
}

/// Keeps every SMS.
final class LoginSMSSender: SMSSender {
    private let messages = Mutex<[SMSMessage]>([])

    func send(_ message: SMSMessage) async throws {
        messages.withLock { $0.append(message) }
    }

    var sent: [SMSMessage] { messages.withLock { $0 } }

    /// The six-digit code of the last SMS to `number`.
    func lastCode(to number: String) throws -> String {
        let message = try #require(sent.last { $0.to == number })
        let digits = Array(message.body)
        for start in 0...(digits.count - 6) {
            let run = digits[start..<start + 6]
            let before = start == 0 || !digits[start - 1].isNumber
            let after = start + 6 == digits.count || !digits[start + 6].isNumber
            if run.allSatisfy(\.isNumber), before, after { return String(run) }
        }
        throw Unexpected(description: "no code in the SMS")
    }
}
