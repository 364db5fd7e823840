import TesseraCore
import TesseraJSON
import Testing

/// Helpers of the configuration suites, as a protocol so they stay out of the test module's global namespace.
protocol ConfigFixtures {}

extension ConfigFixtures {
    /// Parses JSON text that must be an object.
    func jsonObject(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
        try #require(try JSONValue(parsing: text).objectValue, sourceLocation: sourceLocation)
    }

    /// The error a throwing call failed with, or nil when it succeeded (any error but an ``AuthError`` is an issue).
    func failure<Result>(_ body: () throws -> Result) -> AuthError? {
        do {
            _ = try body()
            return nil
        } catch let error as AuthError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    /// A tenant body made of the given members (`"smsDailyQuota": 5`) and, unless they name one, the display name `A`.
    func tenantBody(_ members: String) throws -> JSONObject {
        if members.contains(#""displayName""#) { return try jsonObject("{" + members + "}") }
        return try jsonObject(members.isEmpty ? #"{"displayName": "A"}"# : #"{"displayName": "A", "# + members + "}")
    }

    /// Reads a tenant body for the tenant `t1`.
    func tenant(_ members: String) throws -> Tenant {
        try Tenant(json: try tenantBody(members), tenantId: "t1")
    }

    /// The stored normalized JSON of a tenant `t1` read from a body.
    func storedTenant(_ members: String) throws -> JSONObject {
        try tenant(members).json
    }
}
