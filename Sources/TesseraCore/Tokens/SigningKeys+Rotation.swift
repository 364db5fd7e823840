import TesseraJSON
import TesseraPostgres

extension SigningKeys {
    /// `keys.rotate`: a new signing key, the old ones published until their tokens expire; audited.
    public func rotate(actor: AuditLog.Actor) async throws -> String {
        try actor.principal.requireProject()
        let kid = try await database.withPool { pool in
            try await pool.transaction { transaction in
                let kid = try await self.rotate(in: transaction)
                try await AuditLog.record(
                    transaction, actor: actor, target: "keys/\(kid)", tenantID: nil, before: nil,
                    after: ["kid": .string(kid)], now: self.clock.now())
                return kid
            }
        }
        invalidate()
        return kid
    }
}
