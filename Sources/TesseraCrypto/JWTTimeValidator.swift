/// Checks a token's time claims (`exp`, `nbf`, `iat`, RFC 7519 §4.1.4–6) against a time the caller supplies,
/// so tests can use a fake clock. Times are NumericDates: whole seconds since 1970-01-01T00:00:00Z.
public struct JWTTimeValidator: Sendable, Equatable {
    /// Seconds of clock skew tolerated between the issuer and this server, in each direction.
    public let leeway: Int64
    /// Whether a token without `exp` is refused.
    public let requiresExpiration: Bool

    /// A validator with `leeway` seconds of tolerance (30 by default, at most one hour).
    public init(leeway: Int64 = 30, requiresExpiration: Bool = true) {
        self.leeway = max(0, min(leeway, 3600))
        self.requiresExpiration = requiresExpiration
    }

    /// Throws when the token is expired (`now ≥ exp + leeway`), not yet valid (`now + leeway < nbf`), issued in
    /// the future (`now + leeway < iat`), or lacks a required `exp`.
    public func check(expiresAt: Int64?, notBefore: Int64?, issuedAt: Int64?, now: Int64) throws(JWTError) {
        if let expiresAt {
            if now >= Self.saturatingSum(expiresAt, leeway) { throw .expired(expiresAt: expiresAt, now: now) }
        } else if requiresExpiration {
            throw .missingExpiration
        }
        let tolerantNow = Self.saturatingSum(now, leeway)
        if let notBefore, tolerantNow < notBefore { throw .notYetValid(notBefore: notBefore, now: now) }
        if let issuedAt, tolerantNow < issuedAt { throw .issuedInFuture(issuedAt: issuedAt, now: now) }
    }

    /// `value + leeway`, or `Int64.max` when that overflows (a far-future `exp` stays far in the future).
    private static func saturatingSum(_ value: Int64, _ leeway: Int64) -> Int64 {
        let (sum, overflow) = value.addingReportingOverflow(leeway)
        return overflow ? Int64.max : sum
    }
}
