import Synchronization
import TesseraJSON
public import TesseraPostgres

/// Reads the stored project configuration and tenants, and resolves the configuration a user method runs under
/// (API §4 rule 1). The project row is created with defaults on first write; until then the defaults apply.
///
/// The resolved configurations are cached by tenant and kept fresh by change notices (``changes``): a writer calls
/// ``announceChange(tenantID:in:)`` inside its transaction and ``changed(tenantID:)`` after it commits.
public final class ConfigStore: Sendable {
    /// The topic of change notices about configuration, keyed by tenant id; the project's has no key (every
    /// tenant inherits from it).
    public static let changes = ChangeTopic("config")
    private let feed: ChangeFeed
    /// Resolved configurations by tenant id ("" for the project level).
    private let resolved: FleetCache<EffectiveConfig>
    private let parsed: ParsedConfigs

    /// A store whose cache `feed`'s notices keep fresh, and which `readTexts` reads again in the background: it
    /// reads the stored texts of the project level (nil) or of a tenant on a session of its own (``texts(_:tenantID:)``
    /// on a pool).
    public init(
        changes feed: ChangeFeed, readTexts: @escaping @Sendable (_ tenantID: String?) async throws -> StoredTexts
    ) {
        let parsed = ParsedConfigs()
        self.feed = feed
        self.parsed = parsed
        resolved = feed.cache(Self.changes) { key in
            try parsed.effective(try await readTexts(key.isEmpty ? nil : key))
        }
    }

    /// Announces, inside `db`'s transaction, that the configuration of `tenantID` (nil: the project's, and so every
    /// tenant's) changed; delivered to every server when the transaction commits.
    func announceChange(tenantID: String?, in db: some SQLRunner) async throws {
        try await ChangeFeed.announce(Self.changes, key: tenantID, in: db)
    }

    /// Drops this server's cached configuration of `tenantID` (nil: all) once a change has committed, so that its
    /// next read sees it before the notice arrives.
    func changed(tenantID: String?) {
        feed.drop(Self.changes, key: tenantID)
    }

    /// The project configuration.
    func project(_ db: some SQLRunner, forUpdate: Bool = false) async throws -> ProjectConfig {
        let result = try await db.query(
            "SELECT config::text FROM project_config" + (forUpdate ? " FOR UPDATE" : ""), [])
        guard let text = try result.rows.first?.decode(String.self, at: 0) else { return try ProjectConfig(json: [:]) }
        return try ProjectConfig(json: try Self.object(text))
    }

    /// Tenant `tenantID`, or `TENANT_NOT_FOUND`.
    func tenant(_ db: some SQLRunner, _ tenantID: String, forUpdate: Bool = false) async throws -> Tenant {
        let result = try await db.query(
            "SELECT config::text FROM tenants WHERE tenant_id = $1" + (forUpdate ? " FOR UPDATE" : ""), [tenantID])
        guard let text = try result.rows.first?.decode(String.self, at: 0) else {
            throw AuthError(.tenantNotFound, "There is no tenant \(tenantID).")
        }
        return try Tenant(json: try Self.object(text), tenantId: tenantID)
    }

    /// `TENANT_NOT_FOUND` unless `tenantID` is nil (the project level) or names an existing tenant.
    public func requireTenant(_ db: some SQLRunner, _ tenantID: String?) async throws {
        guard let tenantID else { return }
        let result = try await db.query("SELECT 1 FROM tenants WHERE tenant_id = $1", [tenantID])
        guard result.rowCount == 1 else { throw AuthError(.tenantNotFound, "There is no tenant \(tenantID).") }
    }

    /// The configuration of the project level (nil) or of a tenant, by inheritance, in one round trip.
    /// Cached (see the type's notes).
    public func effective(_ db: some SQLRunner, tenantID: String?) async throws -> EffectiveConfig {
        try await resolved.value(for: tenantID ?? "") { try effective(try await Self.texts(db, tenantID: tenantID)) }
    }

    /// The stored texts of the project level (nil) or of a tenant, read on `db`.
    public static func texts(_ db: some SQLRunner, tenantID: String?) async throws -> StoredTexts {
        let result = try await db.query("SELECT \(storedTexts(tenantID: "$1"))", [tenantID ?? ""])
        return try StoredTexts(row: result[0], at: 0, tenantID: tenantID)
    }

    /// Two SQL columns holding the stored texts of ``effective(_:)``: the project's, then the tenant's whose id is
    /// the SQL expression `tenantID`. Statements that also read something else select them to save a round trip.
    public static func storedTexts(tenantID: String) -> String {
        "(SELECT config::text FROM project_config), (SELECT config::text FROM tenants WHERE tenant_id = \(tenantID))"
    }

    /// The configuration of the project level (nil) or of a tenant when this server holds a copy younger than the
    /// staleness bound, and the epoch to pass to ``effective(_:readAt:epoch:)`` when it reads the texts instead.
    public func cached(tenantID: String?) -> (config: EffectiveConfig?, epoch: UInt64) {
        let (config, epoch) = resolved.cached(tenantID ?? "")
        return (config, epoch)
    }

    /// ``effective(_:)`` of texts read at `readAt` (before the read began), kept as the cached configuration of their
    /// tenant unless a change notice came in since `epoch` (from ``cached(tenantID:)``); for readers that fetch the
    /// texts beside something else in one round trip.
    public func effective(
        _ texts: StoredTexts, readAt: ContinuousClock.Instant, epoch: UInt64
    ) throws -> EffectiveConfig {
        let config = try effective(texts)
        resolved.store(config, for: texts.tenantID ?? "", loadedAt: readAt, epoch: epoch)
        return config
    }

    /// The configuration resolved from `texts`; each distinct texts are parsed once. `TENANT_NOT_FOUND` when a
    /// tenant is named but has no row.
    public func effective(_ texts: StoredTexts) throws -> EffectiveConfig {
        try parsed.effective(texts)
    }

    /// ``effective(_:tenantID:)`` for a user method: `PROJECT_DISABLED` when the tenant has `disableAuth`.
    public func forUserMethod(_ db: some SQLRunner, tenantID: String?) async throws -> EffectiveConfig {
        let config = try await effective(db, tenantID: tenantID)
        guard !config.disabled else {
            throw AuthError(.projectDisabled, "Sign-in is disabled for this tenant.")
        }
        return config
    }

    /// Parses stored JSON text into an object.
    static func object(_ text: String) throws -> JSONObject {
        guard let object = try JSONParser().parse(Array(text.utf8)).objectValue else {
            throw AuthError(.invalidConfig, "stored configuration is not an object")
        }
        return object
    }
}

/// Effective configurations by the stored texts they were parsed from. The database stays the only source of truth
/// (every read fetches the texts, and a changed row has a new text); the server just parses each text once instead of
/// on every request.
private final class ParsedConfigs: Sendable {
    private let memo = Mutex<[StoredTexts: EffectiveConfig]>([:])
    /// How many parsed configurations are kept before the memo starts afresh.
    private static let limit = 256

    /// The configuration resolved from `texts`: `TENANT_NOT_FOUND` when a tenant is named but has no row.
    func effective(_ texts: StoredTexts) throws -> EffectiveConfig {
        if let known = memo.withLock({ $0[texts] }) { return known }
        let project = try ProjectConfig(json: try texts.project.map(ConfigStore.object) ?? [:])
        let config: EffectiveConfig
        if let tenantID = texts.tenantID {
            guard let tenantText = texts.tenant else {
                throw AuthError(.tenantNotFound, "There is no tenant \(tenantID).")
            }
            config = EffectiveConfig(
                project: project, tenant: try Tenant(json: try ConfigStore.object(tenantText), tenantId: tenantID))
        } else {
            config = EffectiveConfig(project: project)
        }
        memo.withLock { memo in
            if memo.count >= Self.limit { memo.removeAll(keepingCapacity: true) }
            memo[texts] = config
        }
        return config
    }
}

/// The stored JSON texts a configuration is resolved from: the project row's (nil before the first write) and,
/// for a tenant, the tenant row's (nil when there is no such tenant).
public struct StoredTexts: Hashable, Sendable {
    let project: String?
    let tenantID: String?
    let tenant: String?

    /// The texts in the two columns of ``ConfigStore/storedTexts(tenantID:)`` from `column` on, for the project
    /// level (nil) or tenant `tenantID`.
    public init(row: PostgresRow, at column: Int, tenantID: String?) throws {
        self.init(
            project: try row.decode(String?.self, at: column), tenantID: tenantID,
            tenant: tenantID == nil ? nil : try row.decode(String?.self, at: column + 1))
    }

    /// The texts given one by one.
    init(project: String?, tenantID: String?, tenant: String?) {
        self.project = project
        self.tenantID = tenantID
        self.tenant = tenant
    }
}
