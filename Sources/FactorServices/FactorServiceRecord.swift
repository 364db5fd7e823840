public import FoundationEssentials
import TesseraCore
import TesseraCrypto
public import TesseraJSON

/// A registered factor service as stored in `factor_services`, its secret unsealed.
public struct FactorServiceRecord: Sendable {
    /// The factor id (from its descriptor).
    public var factorID: String
    /// Where it answers.
    public var endpoints: [String]
    /// How long one call may take, in milliseconds (100–10000).
    public var timeoutMilliseconds: Int
    /// Whether plain http is allowed to hosts other than loopback.
    public var allowInsecureHttp: Bool
    /// What its `factor.describe` returned at registration or at the last update.
    public var descriptor: JSONObject
    /// The shared secret (32 bytes).
    public var secret: [UInt8]
    /// When it was registered.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date

    /// What admins see (`FactorService` in `docs/api-reference.md`): everything but the secret.
    public var resource: JSONObject {
        [
            "factorId": .string(factorID), "displayName": descriptor["displayName"] ?? .string(factorID),
            "endpoints": .array(endpoints.map { .string($0) }), "timeoutMs": .integer(Int64(timeoutMilliseconds)),
            "allowInsecureHttp": .bool(allowInsecureHttp), "descriptor": .object(descriptor),
            "createdAt": .string(RFC3339.string(from: createdAt)),
            "updatedAt": .string(RFC3339.string(from: updatedAt)),
        ]
    }
}
