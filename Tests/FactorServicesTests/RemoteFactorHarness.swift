import FactorServices
import FoundationEssentials
import Logging
import MultiFactor
import TOTPFactor
import TesseraCore
import TesseraCrypto
import TesseraHTTP
import TesseraJSON
import TesseraLoop
import TesseraMetrics
import TesseraPostgres
import TesseraTestSupport
import Testing

/// A router over the test database whose directory offers the built-in TOTP factor and the factor services
/// registered in `factor_services`, with the TOTP plugin itself served as a factor service (`totp-remote`) by a
/// ``FactorHost`` on a loopback port: Tessera and the factor service talk over real HTTP, as separate processes do.
struct RemoteFactorHarness {
    let core: CoreHarness
    let router: MultiFactorRouter
    /// The password first factor over ``router``.
    var firstFactor: FirstFactorSignIn { FirstFactorSignIn(router: router) }
    let admin: FactorServicesAdmin
    let directory: FactorDirectory
    let health: FactorServiceHealth
    let host: FactorHost
    let server: HTTPServer
    let secret: [UInt8]

    static let password = "correct horse battery"
    static let migrations =
        CoreMigrations.all + MultiFactorMigrations.all + FactorRegistry([TOTPFactor()]).migrations
        + FactorServicesMigrations.all
    static let projectKey = AuditLog.Actor(
        principal: AdminPrincipal(keyID: "factor-services-test", scope: .project), method: "test", requestID: "r")
    static let quiet = Logger(label: "factor-test") { _ in SwiftLogNoOpLogHandler() }

    /// Runs `body` with a fresh router, a started factor service and a registration of it under a unique id.
    static func run<T>(
        refreshInterval: Duration = .seconds(5), _ body: (RemoteFactorHarness) async throws -> T
    ) async throws -> T {
        try await CoreHarness.run(migrations: migrations) { core in
            let group = try EventLoopGroup(loopCount: 1)
            defer { group.shutdown() }
            let secret = try SecureRandom.bytes(count: 32)
            let id = "totp-\(UInt32.random(in: 0 ... .max))"
            let host = try FactorHost(factor: TOTPFactor(), id: id, secret: secret, database: NoDatabase())
            var routes = HTTPRouter()
            routes.on(.post, "/rpc", handler: { request in await host.respond(to: request) })
            let server = HTTPServer(
                name: "factor-test", loops: group.loops, host: "127.0.0.1", port: 0, router: routes, logger: quiet)
            try await server.start()
            let http = try HTTPClient(
                group: group,
                configuration: HTTPClientConfiguration(maxResponseBodyBytes: FactorServiceClient.maxResponseBytes))
            let health = FactorServiceHealth()
            let registered = RegisteredFactorServices(
                keyRing: core.services.keyRing, http: http, health: health, logger: quiet)
            let directory = FactorDirectory(
                builtIn: FactorRegistry([TOTPFactor()]), source: registered, refreshInterval: refreshInterval)
            let harness = RemoteFactorHarness(
                core: core,
                router: MultiFactorRouter(services: core.services, directory: directory, logger: quiet),
                admin: FactorServicesAdmin(services: core.services, registered: registered, directory: directory),
                directory: directory, health: health, host: host, server: server, secret: secret)
            do {
                _ = try await harness.admin.register(
                    ["endpoints": .array([.string(harness.endpoint)])], secret: Base64URL.encode(secret),
                    actor: projectKey)
                let value = try await body(harness)
                try? await harness.admin.delete(factorID: harness.factorID, actor: projectKey)
                await server.shutdown(gracePeriod: .zero)
                return value
            } catch {
                try? await harness.admin.delete(factorID: harness.factorID, actor: projectKey)
                await server.shutdown(gracePeriod: .zero)
                throw error
            }
        }
    }

    /// The registered id of the served factor.
    var factorID: String { host.description["id"]?.stringValue ?? "" }
    /// The factor as the router knows it.
    var factor: FactorID { FactorID(rawValue: factorID) }
    /// Where the factor service answers.
    var endpoint: String { "http://127.0.0.1:\(server.port)/rpc" }
    /// The member names of the served factor (`totp1234EnrollmentInfo` …).
    var members: FactorDescriptor { RemoteFactorHarness.descriptor(of: host) }

    static func descriptor(of host: FactorHost) -> FactorDescriptor {
        // The description was made from a valid descriptor: reading it back cannot fail.
        (try? FactorServiceDescriptor(json: host.description).descriptor) ?? TOTPFactor().descriptor
    }

    /// A tenant with the remote factor (and in-process TOTP) enabled.
    func tenant(state: String = "ENABLED") async throws -> String {
        let id = "fs-\(UInt32.random(in: 0 ... .max))"
        let json: JSONObject = [
            "displayName": "Factor services",
            "mfaConfig": [
                "state": .string(state),
                "providerConfigs": [
                    ["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 5]],
                    ["state": "ENABLED", "factorServiceProviderConfig": ["factorId": .string(factorID)]],
                ],
            ],
        ]
        try await core.insertTenant(id, json)
        return id
    }

    /// A verified password user of `tenantID`, freshly signed in.
    func user(tenantID: String) async throws -> (email: String, idToken: String) {
        let email = CoreHarness.email("fs")
        let signedUp = try await firstFactor.signUp(
            email: email, password: Self.password, displayName: nil, tenantID: tenantID)
        try await core.sql("UPDATE users SET email_verified = true WHERE user_id = $1", [signedUp.localId])
        guard
            case .tokens(let tokens) = try await firstFactor.signInWithPassword(
                email: email, password: Self.password, tenantID: tenantID)
        else { throw Unexpected(description: "a fresh user was challenged") }
        return (email, tokens.idToken)
    }

    /// Enrols the remote factor for the user of `idToken`; returns the enrolment id and the TOTP secret.
    func enroll(_ idToken: String, tenantID: String) async throws -> (id: String, secret: [UInt8]) {
        let started = try await router.startEnrollment(
            try await router.factors().enrollmentStart([
                "idToken": .string(idToken), "tenantId": .string(tenantID), members.enrollmentInfo.name: [:],
            ]))
        let info = try #require(started.result[members.enrollmentResult.name]?.objectValue)
        let secret = try Base32.decode(try #require(info["sharedSecretKey"]?.stringValue))
        let result = try await router.finalizeEnrollment(
            try await router.factors().enrollmentFinalize([
                "idToken": .string(idToken), "tenantId": .string(tenantID),
                members.verificationInfo.name: [
                    "sessionInfo": info["sessionInfo"] ?? .null, "verificationCode": .string(try code(secret)),
                ],
            ]))
        return (try #require(result.mfaEnrollmentId), secret)
    }

    /// A pending credential of a password sign-in that must pass a second factor.
    func challenge(_ email: String, tenantID: String) async throws -> String {
        guard
            case .challenge(let challenge) = try await firstFactor.signInWithPassword(
                email: email, password: Self.password, tenantID: tenantID)
        else { throw Unexpected(description: "expected an MFA challenge") }
        return challenge.mfaPendingCredential
    }

    /// `mfaSignIn.finalize` through the remote factor.
    func finish(_ credential: String, enrollmentID: String, code: String, tenantID: String) async throws -> TokenResult
    {
        try await router.finalizeSignIn(
            try await router.factors().signInFinalize([
                "mfaPendingCredential": .string(credential), "mfaEnrollmentId": .string(enrollmentID),
                "tenantId": .string(tenantID), members.verificationInfo.name: ["verificationCode": .string(code)],
            ]))
    }

    /// The TOTP code of `secret` `steps` steps from the harness's now.
    func code(_ secret: [UInt8], steps: Int = 0) throws -> String {
        try OneTimePassword(secret: secret).code(at: Int64(core.clock.now().timeIntervalSince1970) + Int64(steps * 30))
    }
}

/// The database of a factor service that needs none.
struct NoDatabase: SQLRunner, Sendable {
    func query(_ sql: String, _ parameters: [any PostgresEncodable]) async throws(PostgresError) -> PostgresResult {
        throw PostgresError(.unavailable, message: "no database")
    }
}

/// A call answered the other way than the test expected.
struct Unexpected: Error, CustomStringConvertible {
    let description: String
}
