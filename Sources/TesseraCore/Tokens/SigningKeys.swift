public import FoundationEssentials
public import TesseraCrypto
import TesseraJSON
public import TesseraPostgres

/// The ES256 keys that sign ID tokens (and, later, access tokens), kept in `signing_keys` with the private key
/// sealed under the master key ring.
///
/// The newest key that is not retired signs. `keys.rotate` retires the current key and makes a new one; retired
/// keys stay published in the JWKS for ``retiredKeyPublication`` so the tokens they signed keep verifying until
/// they expire. Each server caches the keys and reloads them when a rotation's change notice arrives (see
/// ``ChangeFeed``; `CoreServices` subscribes), every 30 s (`refreshInterval`) in case a notice was lost (re-read in
/// the background from half of it while every request signs with what is cached, as a ``FleetCache`` does), and at
/// once when a token names a key it does not know.
public final class SigningKeys: Sendable {
    /// How long a retired key stays in the JWKS: longer than any token it can have signed lives.
    public static let retiredKeyPublication: TimeInterval = 86_400
    /// The least time between two reloads caused by unknown key ids, so junk tokens cannot hammer the database.
    static let unknownKeyReloadInterval: Duration = .seconds(1)

    /// What one load of `signing_keys` found.
    struct Snapshot: Sendable {
        let signer: JWTSigner
        let published: ES256KeySet
        let loadedAt: ContinuousClock.Instant
    }

    let database: PostgresClient
    private let keyRing: KeyRing
    let clock: any WallClock
    /// The one snapshot, under the key "": re-read in the background once half as old as its staleness while every
    /// request signs with it, and dropped by a rotation's notice (a read that raced the notice keeps nothing).
    private let cache: FleetCache<Snapshot>

    /// Keys in `database`, sealed with `keyRing`, read again once `refreshInterval` old.
    public init(
        database: PostgresClient, keyRing: KeyRing, clock: any WallClock, refreshInterval: Duration = .seconds(30)
    ) {
        self.database = database
        self.keyRing = keyRing
        self.clock = clock
        cache = FleetCache(staleness: refreshInterval, capacity: 1) { _ in
            try await Self.load(database, keyRing: keyRing, clock: clock)
        }
    }

    /// Makes the first signing key when there is none (once across a fleet starting together) and loads the
    /// keys. Run at start-up.
    public func prepare() async throws {
        try await database.withPool { pool in
            try await pool.transaction { transaction in
                try await Self.lock(transaction)
                let current = try await transaction.query(
                    "SELECT 1 FROM signing_keys WHERE retired_at IS NULL", [])
                if current.rowCount == 0 { try await self.insertNewKey(transaction) }
            }
        }
        _ = try await cache.reload("")
    }

    /// The signer of new tokens: the newest key that is not retired.
    public func signer() async throws -> JWTSigner {
        try await snapshot().signer
    }

    /// The published keys to verify the JWT `token` with, reloaded first when the `kid` of its header is not among
    /// them (a key made by another server).
    public func keys(verifying token: String) async throws -> ES256KeySet {
        let kid = Self.keyID(of: token)
        let snapshot = try await snapshot()
        guard let kid, snapshot.published.publicKey(for: kid) == nil,
            ContinuousClock.now - snapshot.loadedAt >= Self.unknownKeyReloadInterval
        else { return snapshot.published }
        return try await cache.reload("").published
    }

    /// The `kid` of a JWT's header when it can be read, to find keys made by another server; nil otherwise (the
    /// verifier then reports what is wrong).
    private static func keyID(of token: String) -> String? {
        guard let header = token.split(separator: ".", omittingEmptySubsequences: false).first,
            let bytes = try? Base64URL.decode(String(header)),
            let json = try? JSONParser().parse(bytes)
        else { return nil }
        return json.objectValue?["kid"]?.stringValue
    }

    /// The JWK Set served at `/oauth2/jwks`: the current key and every retired key still published.
    public func jwks() async throws -> JWKSet {
        try await snapshot().published.jwks
    }

    /// Retires the current key and makes a new one inside `transaction`, announcing the change to the fleet
    /// (``changes``); returns the new `kid`. Call ``invalidate()`` once the transaction has committed.
    public func rotate(in transaction: PostgresTransaction) async throws -> String {
        try await Self.lock(transaction)
        let now = clock.now()
        try await transaction.query(
            "UPDATE signing_keys SET retired_at = $1, publish_until = $2 WHERE retired_at IS NULL",
            [now, now.addingTimeInterval(Self.retiredKeyPublication)])
        try await ChangeFeed.announce(Self.changes, in: transaction)
        return try await insertNewKey(transaction)
    }

    /// The topic of change notices about the signing keys (no key: they are reloaded whole).
    public static let changes = ChangeTopic("signing_keys")

    /// Drops the cache so the next use reloads from the database.
    public func invalidate() {
        cache.invalidate(key: nil)
    }

    private func snapshot() async throws -> Snapshot {
        try await cache.value(for: "")
    }

    /// Reads the keys in `database`, the current one's private key unsealed with `keyRing`.
    private static func load(
        _ database: PostgresClient, keyRing: KeyRing, clock: any WallClock
    ) async throws -> Snapshot {
        let now = clock.now()
        let result = try await database.withPool { pool in
            try await pool.query(
                """
                SELECT kid, sealed_private_key, public_jwk::text, retired_at IS NULL FROM signing_keys
                WHERE retired_at IS NULL OR publish_until > $1 ORDER BY created_at DESC
                """, [now])
        }
        var published: [String: ES256PublicKey] = [:]
        var signer: JWTSigner?
        for row in result.rows {
            let kid = try row.decode(String.self, at: 0)
            let jwk = try JSONValueDecoder().decode(
                JWK.self, from: try JSONParser().parse(Array(try row.decode(String.self, at: 2).utf8)))
            published[kid] = try ES256PublicKey(jwk: jwk)
            if signer == nil, try row.decode(Bool.self, at: 3) {
                let sealed = try row.decode([UInt8].self, at: 1)
                let pem: [UInt8]
                do {
                    pem = try keyRing.open(sealed, associatedData: Array(kid.utf8))
                } catch {
                    throw SigningKeyError.sealedUnderAnotherMasterKey(
                        (try? KeyRing.keyID(of: sealed)) ?? "unknown", error.description)
                }
                signer = try JWTSigner(key: ES256PrivateKey.fromPEM(String(decoding: pem, as: UTF8.self)), kid: kid)
            }
        }
        guard let signer else { throw SigningKeyError.noCurrentKey }
        return Snapshot(signer: signer, published: ES256KeySet(published), loadedAt: .now)
    }

    @discardableResult
    private func insertNewKey(_ transaction: PostgresTransaction) async throws -> String {
        let key = try ES256PrivateKey.generate()
        let kid = key.publicKey.thumbprint
        let sealed = try keyRing.seal(Array(try key.pemRepresentation().utf8), associatedData: Array(kid.utf8))
        let jwk = try JSONValueEncoder().encode(key.publicKey.jwk(kid: kid))
        try await transaction.query(
            "INSERT INTO signing_keys (kid, sealed_private_key, public_jwk, created_at) VALUES ($1, $2, $3, $4)",
            [kid, sealed, PostgresJSONB(String(decoding: jwk.serialized(), as: UTF8.self)), clock.now()])
        return kid
    }

    /// Serializes key creation and rotation across the fleet.
    private static func lock(_ transaction: PostgresTransaction) async throws {
        try await transaction.query("SELECT pg_advisory_xact_lock(hashtext('tessera.signing_keys'))", [])
    }
}

/// The signing keys' sealed private keys, retired ones included, as a master-key rotation re-seals them
/// (`tessera reseal`). The keys themselves do not change, so the servers' caches stay right.
public struct SigningKeySecrets: SealedSecretsTable {
    /// The table's secrets.
    public init() {}

    public var table: String { "signing_keys" }

    public func envelopes(_ db: any SQLRunner, after key: String?, limit: Int) async throws -> [SealedEnvelope] {
        let result = try await db.query(
            """
            SELECT kid, sealed_private_key FROM signing_keys WHERE kid > coalesce($1::text, '') ORDER BY kid LIMIT $2
            """, [key, limit])
        return try SealedEnvelope.rows(of: result)
    }

    public func replace(_ db: any SQLRunner, key: String, old: [UInt8], new: [UInt8]) async throws -> Bool {
        try await db.query(
            "UPDATE signing_keys SET sealed_private_key = $3 WHERE kid = $1 AND sealed_private_key = $2",
            [key, old, new]
        ).affectedRows == 1
    }

    public func associatedData(key: String) -> [UInt8] { Array(key.utf8) }
}

/// A state of `signing_keys` the server cannot sign with.
enum SigningKeyError: Error, CustomStringConvertible {
    /// Every key is retired; ``SigningKeys/prepare()`` was not run.
    case noCurrentKey
    /// The current key cannot be unsealed with this server's key ring: another master key sealed it.
    case sealedUnderAnotherMasterKey(String, String)

    var description: String {
        switch self {
        case .noCurrentKey:
            "no current signing key: run the server's start-up preparation"
        case .sealedUnderAnotherMasterKey(let keyID, let reason):
            "the database's signing key is sealed under master key \(keyID), which this server cannot use "
                + "(\(reason)): start every server of the database with the same --master-key-file"
        }
    }
}
