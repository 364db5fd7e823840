/// How a module deletes rows of one of its tables once they no longer matter: the rows whose time column is
/// older than now less a grace period (kept while an expired row still serves, e.g. for replay detection). The
/// janitor (`TesseraServer.Janitor`) runs the rules of every module in small batches; each module owns the rules of
/// its own tables.
public struct RetentionRule: Sendable {
    /// The table, as metrics and logs name it.
    public let table: String
    /// How long after its time a row is kept.
    public let grace: Duration
    /// A statement deleting at most `$2` of the table's rows whose time is before `$1` (now less the grace), locked
    /// with `SKIP LOCKED` so that it never waits for a request, and only while it holds the transaction-level
    /// advisory lock `$3` (the janitor's, so one server of a fleet sweeps at a time). It returns one row per deleted
    /// row.
    public let statement: String

    /// The rows of `table` whose `time` column (with an index on it) is older than now less `grace`, with an extra
    /// condition `where` on the row (SQL over the table's columns) when given.
    public static func expiring(
        _ table: String, time: String, grace: Duration = .zero, where condition: String? = nil
    ) -> RetentionRule {
        let extra = condition.map { " AND (\($0))" } ?? ""
        return RetentionRule(
            table: table, grace: grace,
            statement: """
                DELETE FROM \(table) WHERE (SELECT pg_try_advisory_xact_lock($3)) AND ctid = ANY(ARRAY(
                    SELECT ctid FROM \(table) WHERE \(time) < $1\(extra) ORDER BY \(time) LIMIT $2 FOR UPDATE SKIP LOCKED))
                RETURNING 1
                """)
    }

    /// A rule of any statement of the form ``statement`` describes.
    public init(table: String, grace: Duration, statement: String) {
        self.table = table
        self.grace = grace
        self.statement = statement
    }
}
