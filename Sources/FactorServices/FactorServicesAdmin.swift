import FoundationEssentials
public import MultiFactor
public import TesseraCore
import TesseraCrypto
public import TesseraJSON
import TesseraPostgres

/// `factorServices.*` (`docs/api-reference.md`, "Factor services"): registering, reading, changing and removing
/// factor services. Project-scope admin keys only (a tenant-scoped key gets `PERMISSION_DENIED` before anything
/// runs); every change is audited (`factorServices/<id>`, the secret never logged) and applies on this server at
/// once and on the others of the fleet within the directory's refresh interval.
public struct FactorServicesAdmin: Sendable {
    /// Timeouts a registration may set, in milliseconds.
    public static let timeouts = 100...10_000
    /// The timeout when none is given.
    public static let defaultTimeout = 2_000

    let services: CoreServices
    let registered: RegisteredFactorServices
    let directory: FactorDirectory

    /// The admin of the services in `registered`, whose factors `directory` offers.
    public init(services: CoreServices, registered: RegisteredFactorServices, directory: FactorDirectory) {
        self.services = services
        self.registered = registered
        self.directory = directory
    }

    /// A registration and, when it was made or rotated, its secret (base64url), shown only in this answer.
    public struct Registered: Sendable {
        /// The service as admins see it.
        public var factorService: JSONObject
        /// The secret, once.
        public var secret: String?
    }

    /// Registers the service described by `input` (`{endpoints, timeoutMs?, allowInsecureHttp?}`): asks it for
    /// its descriptor (`factor.describe`), checks it against the factors offered, and stores it with `secret`
    /// (base64url of 32 bytes) or a new one.
    public func register(_ input: JSONObject, secret: String?, actor: AuditLog.Actor) async throws -> Registered {
        try actor.principal.requireProject()
        let settings = try Settings(input, current: nil)
        let key = try Self.secret(secret)
        let described = try await describe(settings, expecting: nil)
        let now = services.clock.now()
        let record = FactorServiceRecord(
            factorID: described.id, endpoints: settings.endpoints.urls, timeoutMilliseconds: settings.timeout,
            allowInsecureHttp: settings.allowInsecureHttp, descriptor: described.json, secret: key, createdAt: now,
            updatedAt: now)
        try await services.database.withPool { pool in
            try await self.checkFree(described, in: pool)
            try await pool.transaction { transaction in
                guard try await FactorServiceStore.insert(transaction, keyRing: self.services.keyRing, record) else {
                    throw AuthError(.factorServiceExists, "The factor service \(described.id) is registered already.")
                }
                try await AuditLog.record(
                    transaction, actor: actor, target: Self.target(record.factorID), tenantID: nil, before: nil,
                    after: .object(record.resource), now: now)
            }
        }
        await changed(record.factorID)
        return Registered(factorService: record.resource, secret: Base64URL.encode(key))
    }

    /// The registration of `factorID`.
    public func get(factorID: String, actor: AdminPrincipal) async throws -> JSONObject {
        try actor.requireProject()
        return try await services.database.withPool { pool in try await self.find(pool, factorID).resource }
    }

    /// Every registration, by id.
    public func list(actor: AdminPrincipal) async throws -> [JSONObject] {
        try actor.requireProject()
        return try await services.database.withPool { pool in
            try await FactorServiceStore.all(pool, keyRing: self.services.keyRing).map(\.resource)
        }
    }

    /// Changes the settings of `factorID` (`{endpoints?, timeoutMs?, allowInsecureHttp?}`, all of them or those
    /// of `updateMask`) and asks the service for its descriptor again, whose id must stay the same.
    public func update(
        factorID: String, _ input: JSONObject, updateMask: String?, actor: AuditLog.Actor
    ) async throws -> JSONObject {
        try actor.principal.requireProject()
        let current = try await services.database.withPool { pool in try await self.find(pool, factorID) }
        let settings = try Settings(input, current: current, mask: updateMask)
        let described = try await describe(settings, expecting: factorID)
        var record = current
        record.endpoints = settings.endpoints.urls
        record.timeoutMilliseconds = settings.timeout
        record.allowInsecureHttp = settings.allowInsecureHttp
        record.descriptor = described.json
        record.updatedAt = services.clock.now()
        let updated = record
        try await services.database.withPool { pool in
            try await self.checkFree(described, in: pool)
            try await self.replace(pool, updated, before: current, actor: actor)
        }
        await changed(factorID)
        return updated.resource
    }

    /// Replaces the secret of `factorID` with `secret` or a new one; the service must be given it before its
    /// calls succeed again.
    public func rotateSecret(factorID: String, secret: String?, actor: AuditLog.Actor) async throws -> String {
        try actor.principal.requireProject()
        let key = try Self.secret(secret)
        try await services.database.withPool { pool in
            let current = try await self.find(pool, factorID)
            var record = current
            record.secret = key
            record.updatedAt = self.services.clock.now()
            try await self.replace(pool, record, before: current, actor: actor)
        }
        await changed(factorID)
        return Base64URL.encode(key)
    }

    /// Removes the registration of `factorID`. Its users' enrolments stay, hidden and unusable, until a service
    /// with the same id is registered again (as for a factor that is switched off, API §4 rule 4).
    public func delete(factorID: String, actor: AuditLog.Actor) async throws {
        try actor.principal.requireProject()
        try await services.database.withPool { pool in
            let current = try await self.find(pool, factorID)
            try await pool.transaction { transaction in
                guard try await FactorServiceStore.delete(transaction, factorID: factorID) else {
                    throw Self.notFound(factorID)
                }
                try await AuditLog.record(
                    transaction, actor: actor, target: Self.target(factorID), tenantID: nil,
                    before: .object(current.resource), after: nil, now: self.services.clock.now())
            }
        }
        await changed(factorID)
    }

    /// What a registration may set, checked.
    struct Settings {
        var endpoints: FactorServiceEndpoints
        var timeout: Int
        var allowInsecureHttp: Bool

        init(_ input: JSONObject, current: FactorServiceRecord?, mask: String? = nil) throws(AuthError) {
            let known: Set<String> = ["endpoints", "timeoutMs", "allowInsecureHttp"]
            if let unknown = input.keys.first(where: { !known.contains($0) }) {
                throw AuthError(.invalidArgument, "factorService.\(unknown) is not a known field")
            }
            let masked = try mask.map { text throws(AuthError) in
                let paths = Set(text.split(separator: ",").map { String($0.filter { $0 != " " }) })
                if let unknown = paths.first(where: { !known.contains($0) }) {
                    throw AuthError(.invalidArgument, "updateMask names an unknown field \(unknown)")
                }
                return paths
            }
            func given(_ key: String) -> Bool { masked.map { $0.contains(key) } ?? true }
            allowInsecureHttp =
                given("allowInsecureHttp")
                ? try Self.bool(input["allowInsecureHttp"]) : current?.allowInsecureHttp ?? false
            timeout =
                given("timeoutMs")
                ? try Self.timeout(input["timeoutMs"])
                : current?.timeoutMilliseconds ?? FactorServicesAdmin.defaultTimeout
            let urls: [String]
            if given("endpoints") {
                guard let list = input["endpoints"]?.arrayValue else {
                    throw AuthError(.invalidArgument, "factorService.endpoints must be an array of URLs")
                }
                urls = try list.map { value throws(AuthError) in
                    guard let url = value.stringValue else {
                        throw AuthError(.invalidArgument, "factorService.endpoints must be an array of URLs")
                    }
                    return url
                }
            } else {
                urls = current?.endpoints ?? []
            }
            endpoints = try FactorServiceEndpoints(urls, allowInsecureHttp: allowInsecureHttp)
        }

        private static func bool(_ value: JSONValue?) throws(AuthError) -> Bool {
            guard let value, !value.isNull else { return false }
            guard let flag = value.boolValue else {
                throw AuthError(.invalidArgument, "factorService.allowInsecureHttp must be a boolean")
            }
            return flag
        }

        private static func timeout(_ value: JSONValue?) throws(AuthError) -> Int {
            guard let value, !value.isNull else { return FactorServicesAdmin.defaultTimeout }
            guard let milliseconds = value.intValue, FactorServicesAdmin.timeouts.contains(milliseconds) else {
                throw AuthError(.invalidArgument, "factorService.timeoutMs must be an integer from 100 to 10000")
            }
            return milliseconds
        }
    }

    /// The service's checked descriptor, from `factor.describe` (unsigned). A service that cannot be reached is
    /// `FACTOR_SERVICE_UNAVAILABLE`; one that answers a bad descriptor `INVALID_ARGUMENT`.
    private func describe(_ settings: Settings, expecting id: String?) async throws -> FactorServiceDescriptor {
        // Its own health: a service being described is not (yet) one the server calls.
        let client = try registered.client(
            factorID: id ?? "unregistered", endpoints: settings.endpoints, secret: nil,
            timeoutMilliseconds: settings.timeout, health: FactorServiceHealth())
        let described = try FactorServiceDescriptor(json: try await client.call("factor.describe", [:]))
        if let id, described.id != id {
            throw AuthError(.invalidArgument, "The service now describes itself as \(described.id), not \(id).")
        }
        return described
    }

    /// Refuses a descriptor whose id or member names another factor offered now has (a built-in one, or another
    /// registered service).
    private func checkFree(_ described: FactorServiceDescriptor, in pool: PostgresPool) async throws {
        directory.invalidate()
        let offered = try await directory.registry(pool)
        let names = Set(FactorRegistry.memberNames(of: described.descriptor))
        for factor in offered.factors where factor.descriptor.id.rawValue != described.id {
            let taken = names.intersection(FactorRegistry.memberNames(of: factor.descriptor))
            if let name = taken.first {
                throw AuthError(.invalidArgument, "The member \(name) is already the \(factor.descriptor.id) factor's.")
            }
        }
        if directory.builtIn.factor(FactorID(rawValue: described.id)) != nil {
            throw AuthError(.invalidArgument, "The id \(described.id) is a built-in factor's.")
        }
    }

    private func find(_ pool: PostgresPool, _ factorID: String) async throws -> FactorServiceRecord {
        guard let record = try await FactorServiceStore.find(pool, keyRing: services.keyRing, factorID: factorID)
        else { throw Self.notFound(factorID) }
        return record
    }

    private func replace(
        _ pool: PostgresPool, _ record: FactorServiceRecord, before: FactorServiceRecord, actor: AuditLog.Actor
    ) async throws {
        try await pool.transaction { transaction in
            guard
                try await FactorServiceStore.find(
                    transaction, keyRing: self.services.keyRing, factorID: record.factorID, forUpdate: true) != nil
            else { throw Self.notFound(record.factorID) }
            try await FactorServiceStore.update(transaction, keyRing: self.services.keyRing, record)
            try await AuditLog.record(
                transaction, actor: actor, target: Self.target(record.factorID), tenantID: nil,
                before: .object(before.resource), after: .object(record.resource), now: record.updatedAt)
        }
    }

    /// Makes this server see a change at once: forgets the service's breaker and reads the registrations again.
    private func changed(_ factorID: String) async {
        directory.invalidate()
        registered.health.forget(factorID)
        _ = try? await services.database.withPool { pool in try await self.directory.registry(pool) }
    }

    private static func secret(_ text: String?) throws -> [UInt8] {
        guard let text else { return try SecureRandom.bytes(count: FactorServiceSignature.secretByteCount) }
        guard let bytes = try? Base64URL.decode(text), bytes.count == FactorServiceSignature.secretByteCount else {
            throw AuthError(.invalidArgument, "secret must be base64url of 32 bytes")
        }
        return bytes
    }

    private static func target(_ factorID: String) -> String { "factorServices/\(factorID)" }

    private static func notFound(_ factorID: String) -> AuthError {
        AuthError(.factorServiceNotFound, "No factor service \(factorID) is registered.")
    }
}
