/// One versioned schema change. Modules (the core, each factor plugin) own their migrations and number
/// them on their own; `(module, version)` identifies a migration.
public struct Migration: Sendable, Equatable {
    /// The owning module, e.g. `core` or `totp`.
    public let module: String
    /// The position within the module, from 1 up.
    public let version: Int
    /// A short name for logs and the bookkeeping table.
    public let name: String
    /// The SQL to run; several statements are allowed.
    public let sql: String

    /// Creates a migration.
    public init(module: String, version: Int, name: String, sql: String) {
        self.module = module
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// `module/0003_name`.
    public var label: String {
        let number = String(version)
        return "\(module)/\(String(repeating: "0", count: max(0, 4 - number.count)))\(number)_\(name)"
    }
}
