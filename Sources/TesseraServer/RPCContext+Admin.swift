import TesseraCore
import TesseraRPC

extension RPCContext {
    /// The admin key the call was authenticated with. The admin table's authenticator sets it before any method
    /// runs, so its absence is a wiring bug.
    func admin() throws -> AdminPrincipal {
        guard let principal = principal as? AdminPrincipal else { throw RPCError.internal() }
        return principal
    }

    /// The actor of an audited change made by `method`.
    func actor(_ method: String) throws -> AuditLog.Actor {
        AuditLog.Actor(principal: try admin(), method: method, requestID: requestID)
    }
}
