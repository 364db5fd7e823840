public import FoundationEssentials
import TesseraCrypto
public import TesseraHTTP
public import TesseraJSON
public import TesseraPostgres

/// The audit trail of admin changes (API §5): who (admin key id), what (method and target), when, and the
/// target before → after, with secrets redacted. Events are written in the same transaction as the change, so
/// the log never misses a change and never records one that did not happen. They outlive deleted tenants.
public enum AuditLog {
    /// Member names whose values never reach the log.
    static let secretMembers: Set<String> = ["password", "passwordHash", "key", "clientSecret", "sharedSecretKey"]

    /// One recorded change, as `auditLog.list` returns it.
    public struct Event: Codable, Sendable, Equatable {
        public var eventId: String
        /// RFC 3339.
        public var time: String
        public var actorKeyId: String
        public var method: String
        /// What changed: `projects/config`, `tenants/<id>`, `users/<localId>`, `adminKeys/<keyId>`, `keys/<kid>`.
        public var target: String
        public var tenantId: String?
        public var before: JSONValue?
        public var after: JSONValue?
        public var requestId: String?
    }

    /// One page of events, newest first.
    public struct Page: Codable, Sendable, Equatable {
        public var events: [Event]
        public var nextPageToken: String?
    }

    /// Who made a change and through which call.
    public struct Actor: Sendable {
        public let principal: AdminPrincipal
        public let method: String
        public let requestID: String

        /// An actor; its request id is by default the one of the request being handled (``RequestScope``).
        public init(principal: AdminPrincipal, method: String, requestID: String = RequestScope.id ?? "") {
            self.principal = principal
            self.method = method
            self.requestID = requestID
        }
    }

    /// Records a change of `target` by `actor` at `now`, inside the caller's transaction.
    public static func record(
        _ db: some SQLRunner, actor: Actor, target: String, tenantID: String?, before: JSONValue?,
        after: JSONValue?, now: Date
    ) async throws {
        let entry = try entry(actor: actor, target: target, tenantID: tenantID, before: before, after: after, now: now)
        try await db.query(entry.sql, entry.binds)
    }

    /// The statement that ``record(_:actor:target:tenantID:before:after:now:)`` runs, for a caller that sends it in
    /// a pipeline with the change it records (one implicit transaction).
    public static func entry(
        actor: Actor, target: String, tenantID: String?, before: JSONValue?, after: JSONValue?, now: Date
    ) throws -> PostgresQuery {
        PostgresQuery(
            """
            INSERT INTO audit_events (event_id, tenant_id, actor_key_id, method, target, occurred_at, before, after,
                request_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """,
            [
                try SecureRandom.identifier(), tenantID, actor.principal.keyID, actor.method, target, now,
                before.map { PostgresJSONB(redacted($0).text) }, after.map { PostgresJSONB(redacted($0).text) },
                actor.requestID,
            ])
    }

    /// Events of `tenantID` (nil: the project level), newest first, `pageSize` at a time.
    static func list(
        _ db: some SQLRunner, tenantID: String?, pageSize: Int, pageToken: String?
    ) async throws -> Page {
        let cursor = try pageToken.map(PageCursor.decode)
        let result = try await db.query(
            """
            SELECT event_id, occurred_at, actor_key_id, method, target, tenant_id, before::text, after::text,
                request_id
            FROM audit_events WHERE coalesce(tenant_id, '') = $1
                AND ($2::timestamptz IS NULL OR (occurred_at, event_id) < ($2, $3))
            ORDER BY occurred_at DESC, event_id DESC LIMIT $4
            """, [UserStore.key(tenantID), cursor?.time, cursor?.id, pageSize + 1])
        var events: [Event] = []
        var times: [Date] = []
        for row in result.rows.prefix(pageSize) {
            let time = try row.decode(Date.self, at: 1)
            times.append(time)
            events.append(
                Event(
                    eventId: try row.decode(String.self, at: 0), time: RFC3339.string(from: time),
                    actorKeyId: try row.decode(String.self, at: 2), method: try row.decode(String.self, at: 3),
                    target: try row.decode(String.self, at: 4), tenantId: try row.decode(String?.self, at: 5),
                    before: try row.decode(String?.self, at: 6).map { try JSONParser().parse(Array($0.utf8)) },
                    after: try row.decode(String?.self, at: 7).map { try JSONParser().parse(Array($0.utf8)) },
                    requestId: try row.decode(String?.self, at: 8)))
        }
        let next =
            result.rowCount > pageSize
            ? events.last.map { PageCursor(time: times[times.count - 1], id: $0.eventId).encoded } : nil
        return Page(events: events, nextPageToken: next)
    }

    /// `value` with every secret member's value replaced by `"[REDACTED]"`, at any depth.
    static func redacted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var copy = JSONObject()
            for (key, member) in object {
                copy[key] = secretMembers.contains(key) ? .string("[REDACTED]") : redacted(member)
            }
            return .object(copy)
        case .array(let elements):
            return .array(elements.map(redacted))
        default:
            return value
        }
    }
}

extension JSONValue {
    /// The JSON text of this value.
    var text: String { String(decoding: serialized(), as: UTF8.self) }
}
